import Foundation
import KeychainFSClient
import KeychainFSModel

/// Secure Enclave keys' operations for SecKey (``SecureEnclaveCalls``), failing as SecKey functions report.
enum SecureEnclaveClient {
    /// A new key's blob, for items of `accessibility` (kSecAttrAccessible raw value).
    static func generate(accessibility: String?) throws(KeyFailure) -> Data {
        try reported { () throws(KeychainError) in try SecureEnclaveCalls.generate(accessibility: accessibility) }
    }

    /// The DER ECDSA signature of `digest`.
    static func sign(_ key: SecureEnclaveKey, digest: Data) throws(KeyFailure) -> Data {
        try reported { () throws(KeychainError) in try SecureEnclaveCalls.sign(key.reference, digest: digest) }
    }

    /// The ECDH shared secret with `peer` (x9.63 public key).
    static func exchange(_ key: SecureEnclaveKey, peer: Data) throws(KeyFailure) -> Data {
        try reported { () throws(KeychainError) in try SecureEnclaveCalls.exchange(key.reference, peer: peer) }
    }

    private static func reported(_ body: () throws(KeychainError) -> Data) throws(KeyFailure) -> Data {
        do { return try body() } catch { throw KeyFailure(error.status, error.message) }
    }
}
