import KeychainFSCSodium
import Foundation

/// Ed25519 signatures (libsodium's `crypto_sign_detached`). The private half is kept as its 32-byte seed
/// in a ``GuardedKey``; the 64-byte secret key libsodium signs with is expanded per call and wiped.
package enum Ed25519 {
    /// Bytes of a public key.
    package static let publicKeyBytes = Int(crypto_sign_PUBLICKEYBYTES)
    /// Bytes of a signature.
    package static let signatureBytes = Int(crypto_sign_BYTES)

    /// The public key of the key pair grown from `seed`.
    package static func publicKey(seed: GuardedKey) -> Data {
        withSecretKey(seed) { publicKey, _ in publicKey }
    }

    /// A detached signature of `message` by the key pair grown from `seed`.
    package static func sign(_ message: Data, seed: GuardedKey) -> Data {
        withSecretKey(seed) { _, secret in
            var signature = Data(count: signatureBytes)
            signature.withUnsafeMutableBytes { s in
                message.withUnsafeBytes { m in
                    _ = crypto_sign_detached(
                        s.baseAddress!.assumingMemoryBound(to: UInt8.self), nil,
                        m.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count), secret)
                }
            }
            return signature
        }
    }

    /// Whether `signature` is `publicKey`'s signature of `message` (wrong sizes are simply false).
    package static func verify(_ signature: Data, of message: Data, publicKey: Data) -> Bool {
        Sodium.ensureInitialised()
        guard signature.count == signatureBytes, publicKey.count == publicKeyBytes else { return false }
        return signature.withUnsafeBytes { s in
            message.withUnsafeBytes { m in
                publicKey.withUnsafeBytes { p in
                    crypto_sign_verify_detached(
                        s.baseAddress!.assumingMemoryBound(to: UInt8.self),
                        m.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count),
                        p.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
                }
            }
        }
    }

    private static func withSecretKey<R>(_ seed: GuardedKey, _ body: (Data, UnsafePointer<UInt8>) -> R) -> R {
        Sodium.ensureInitialised()
        let secretBytes = Int(crypto_sign_SECRETKEYBYTES)
        guard let secret = sodium_malloc(secretBytes)?.assumingMemoryBound(to: UInt8.self) else {
            fatalError("sodium_malloc failed: out of memory")
        }
        defer { sodium_memzero(secret, secretBytes); sodium_free(secret) }
        var publicKey = Data(count: publicKeyBytes)
        publicKey.withUnsafeMutableBytes { p in
            seed.withBytes { s in
                _ = crypto_sign_seed_keypair(
                    p.baseAddress!.assumingMemoryBound(to: UInt8.self), secret,
                    s.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return body(publicKey, secret)
    }
}
