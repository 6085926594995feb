import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// Secure Enclave keys' operations, sent where the vault's engine runs (the daemon over the control
/// socket, or this process for an in-process vault): the private key never reaches this module.
enum SecureEnclaveClient {
    /// A new key's blob, for items of `accessibility` (kSecAttrAccessible raw value).
    static func generate(accessibility: String?) throws(KeyFailure) -> Data {
        var request: KeychainDictionary = ["operation": "generate"]
        if let accessibility { request["accessibility"] = .string(accessibility) }
        return try send(request)
    }

    /// The DER ECDSA signature of `digest`.
    static func sign(_ key: SecureEnclaveKey, digest: Data) throws(KeyFailure) -> Data {
        try send(request("sign", key).merging(["digest": .data(digest)]) { $1 })  // not a schema code
    }

    /// The ECDH shared secret with `peer` (x9.63 public key).
    static func exchange(_ key: SecureEnclaveKey, peer: Data) throws(KeyFailure) -> Data {
        try send(request("exchange", key).merging(["peer": .data(peer)]) { $1 })
    }

    private static func request(_ operation: String, _ key: SecureEnclaveKey) -> KeychainDictionary {
        var request: KeychainDictionary = ["operation": .string(operation), "blob": .data(key.blob)]
        if let ref = key.persistentRef { request["persistentRef"] = .data(ref) }
        if let accessibility = key.accessibility { request["accessibility"] = .string(accessibility) }
        // The key's LAContext as it is now (evaluated or invalidated since the key was found).
        if let context = key.authenticationContext {
            request[QueryKey.useAuthenticationContext] = .dictionary(context.authenticationContext)
            if context.interactionNotAllowed {
                request[QueryKey.useAuthenticationUI] = .string(QueryKey.useAuthenticationUIFail)
            }
        }
        return request
    }

    private static func send(_ request: KeychainDictionary) throws(KeyFailure) -> Data {
        var result: Data?
        var message = ""
        let status = SecItemSession.call { connection throws(KeychainError) in
            do throws(KeychainError) { result = try connection.secureEnclave(request)?.dataValue } catch {
                message = error.message
                throw error
            }
        }
        guard status == errSecSuccess, let result else {
            throw KeyFailure(
                status == errSecSuccess ? errSecInternal : status,
                message.isEmpty ? SecStatus.message(of: status) : message)
        }
        return result
    }
}
