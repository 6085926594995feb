import Foundation
import KeychainFSModel

/// The simulated Secure Enclave's operations, sent where the vault's engine runs (the daemon over the
/// control socket, or this process for an in-process vault): the private key never reaches the caller.
/// Security's SecKey and CryptoKit's `SecureEnclave` both speak through here.
package enum SecureEnclaveCalls {
    /// A key as its client holds it: its blob and, for a key item, where it is stored.
    package struct Key: Sendable {
        package var blob: Data
        package var persistentRef: Data?
        package var accessibility: String?
        /// The LAContext of the call that made or found the key: an evaluated context is not asked again
        /// when the key is used; its application password opens the key's item.
        package var authenticationContext: (any SecAuthenticationContextProviding)?

        package init(
            blob: Data, persistentRef: Data? = nil, accessibility: String? = nil,
            authenticationContext: (any SecAuthenticationContextProviding)? = nil
        ) {
            self.blob = blob
            self.persistentRef = persistentRef
            self.accessibility = accessibility
            self.authenticationContext = authenticationContext
        }
    }

    /// A new key's blob, for items of `accessibility` (kSecAttrAccessible raw value); with `accessControl`
    /// flags, a bound key that carries them (docs/keys.md).
    package static func generate(accessibility: String?, accessControl: UInt64? = nil, compact: Bool = true)
        throws(KeychainError) -> Data
    {
        var request: KeychainDictionary = ["operation": "generate", "compact": .bool(compact)]
        if let accessibility { request["accessibility"] = .string(accessibility) }
        if let accessControl { request["accessControl"] = .number(Int64(bitPattern: accessControl)) }
        return try send(request)
    }

    /// The DER ECDSA signature of `digest`.
    package static func sign(_ key: Key, digest: Data) throws(KeychainError) -> Data {
        try send(request("sign", key).merging(["digest": .data(digest)]) { $1 })  // not a schema code
    }

    /// The ECDH shared secret (the x coordinate) with `peer` (x9.63 public key).
    package static func exchange(_ key: Key, peer: Data) throws(KeychainError) -> Data {
        try send(request("exchange", key).merging(["peer": .data(peer)]) { $1 })
    }

    private static func request(_ operation: String, _ key: Key) -> KeychainDictionary {
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

    private static func send(_ request: KeychainDictionary) throws(KeychainError) -> Data {
        var result: Data?
        var failure: KeychainError?
        let status = SecItemSession.call { connection throws(KeychainError) in
            do throws(KeychainError) { result = try connection.secureEnclave(request)?.dataValue } catch {
                failure = error
                throw error
            }
        }
        if let failure { throw failure }
        guard status == SecStatus.success, let result else {
            throw KeychainError(
                status == SecStatus.success ? SecStatus.internalError : status, SecStatus.message(of: status))
        }
        return result
    }
}
