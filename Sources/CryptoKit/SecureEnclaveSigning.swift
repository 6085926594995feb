import Crypto
import Foundation
import KeychainFSClient

extension SecureEnclave.P256.Signing {
    /// A P-256 signing key that stays in the Secure Enclave (Apple's `SecureEnclave.P256.Signing.PrivateKey`).
    public struct PrivateKey: Sendable {
        let key: EnclaveKey

        /// A new key with Apple's default access control (when unlocked, this device only, `.privateKeyUsage`).
        public init(compactRepresentable: Bool = true, authenticationContext: (any LAContextRepresentable)? = nil)
            throws
        {
            key = try EnclaveKey(
                compactRepresentable: compactRepresentable, accessControl: nil, context: authenticationContext)
        }

        /// A new key whose uses `accessControl` (a SecAccessControl) guards: a locked class refuses them, a
        /// constraint (`.biometryCurrentSet`, `.userPresence`…) prompts through the authentication simulator.
        public init(
            compactRepresentable: Bool = true, accessControl: any SecAccessControlRepresentable,
            authenticationContext: (any LAContextRepresentable)? = nil
        ) throws {
            key = try EnclaveKey(
                compactRepresentable: compactRepresentable, accessControl: accessControl,
                context: authenticationContext)
        }

        /// The key made before whose ``dataRepresentation`` this is.
        public init(dataRepresentation: Data, authenticationContext: (any LAContextRepresentable)? = nil) throws {
            key = try EnclaveKey(dataRepresentation: dataRepresentation, context: authenticationContext)
        }

        /// The key as this device's Secure Enclave alone can use it: store it (a generic password) and load it again.
        public var dataRepresentation: Data { key.dataRepresentation }

        public var publicKey: Crypto.P256.Signing.PublicKey {
            // The engine made it: a valid point.
            try! Crypto.P256.Signing.PublicKey(x963Representation: key.publicKey)
        }

        /// The ECDSA signature of `digest`.
        public func signature<D: Digest>(for digest: D) throws -> Crypto.P256.Signing.ECDSASignature {
            try Crypto.P256.Signing.ECDSASignature(derRepresentation: key.sign(digest: Data(digest)))
        }

        /// The ECDSA signature of SHA-256 of `data`.
        public func signature<D: DataProtocol>(for data: D) throws -> Crypto.P256.Signing.ECDSASignature {
            try signature(for: SHA256.hash(data: data))
        }
    }
}
