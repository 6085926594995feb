import Crypto
import Foundation
import KeychainFSClient

extension SecureEnclave.P256.KeyAgreement {
    /// A P-256 key-agreement key that stays in the Secure Enclave (Apple's
    /// `SecureEnclave.P256.KeyAgreement.PrivateKey`).
    public struct PrivateKey: Sendable {
        let key: EnclaveKey

        /// A new key with Apple's default access control (when unlocked, this device only, `.privateKeyUsage`).
        public init(compactRepresentable: Bool = true, authenticationContext: (any LAContextRepresentable)? = nil)
            throws
        {
            key = try EnclaveKey(
                compactRepresentable: compactRepresentable, accessControl: nil, context: authenticationContext)
        }

        /// A new key whose uses `accessControl` (a SecAccessControl) guards.
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

        public var dataRepresentation: Data { key.dataRepresentation }

        public var publicKey: Crypto.P256.KeyAgreement.PublicKey {
            try! Crypto.P256.KeyAgreement.PublicKey(x963Representation: key.publicKey)  // the engine made it
        }

        /// ECDH with `publicKeyShare`, computed in the Secure Enclave.
        public func sharedSecretFromKeyAgreement(with publicKeyShare: Crypto.P256.KeyAgreement.PublicKey) throws
            -> SharedSecret
        {
            let x = try key.exchange(peer: publicKeyShare.x963Representation)
            return try SharedSecretOfX.make(x)
        }
    }
}

/// swift-crypto's `SharedSecret` has no public initializer; its value is the x coordinate of the ECDH point.
/// Any point with that x coordinate, multiplied by the scalar 1, yields it: so the enclave's x becomes a
/// `SharedSecret` through swift-crypto's own ECDH, without any private key of ours leaving the enclave.
enum SharedSecretOfX {
    private static let one = try! Crypto.P256.KeyAgreement.PrivateKey(rawRepresentation: Data(count: 31) + [1])

    static func make(_ x: Data) throws -> SharedSecret {
        let point = try Crypto.P256.KeyAgreement.PublicKey(compressedRepresentation: [0x02] + x)
        return try one.sharedSecretFromKeyAgreement(with: point)
    }
}
