import KeychainFSCSodium
import Foundation

/// A key sealed to an X25519 public key (libsodium's `crypto_box_seal`): anyone can seal, only the holder
/// of the private half opens. The box says nothing of who sealed it; callers authenticate it otherwise.
package enum SealedBox {
    /// Bytes of an X25519 public key.
    package static let publicKeyBytes = Int(crypto_box_PUBLICKEYBYTES)

    /// The X25519 public key of `secret`.
    package static func publicKey(secret: GuardedKey) -> Data {
        Sodium.ensureInitialised()
        var publicKey = Data(count: publicKeyBytes)
        publicKey.withUnsafeMutableBytes { p in
            secret.withBytes { s in
                _ = crypto_scalarmult_base(
                    p.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    s.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return publicKey
    }

    /// `key` sealed to `publicKey` (nil if that is not a public key's size).
    package static func seal(_ key: GuardedKey, to publicKey: Data) -> Data? {
        Sodium.ensureInitialised()
        guard publicKey.count == publicKeyBytes else { return nil }
        var box = Data(count: GuardedKey.byteCount + crypto_box_sealbytes())
        let status = box.withUnsafeMutableBytes { b in
            key.withBytes { k in
                publicKey.withUnsafeBytes { p in
                    crypto_box_seal(
                        b.baseAddress!.assumingMemoryBound(to: UInt8.self),
                        k.baseAddress!.assumingMemoryBound(to: UInt8.self),
                        UInt64(GuardedKey.byteCount), p.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        return status == 0 ? box : nil
    }

    /// Opens a box made by ``seal(_:to:)`` for `secret`, straight into guarded memory.
    package static func openKey(_ box: Data, secret: GuardedKey) throws(CryptoError) -> GuardedKey {
        guard box.count == GuardedKey.byteCount + crypto_box_sealbytes() else { throw .truncated }
        let publicKey = publicKey(secret: secret)
        var status: Int32 = -1
        let key = GuardedKey.filled { dst in
            status = box.withUnsafeBytes { b in
                publicKey.withUnsafeBytes { p in
                    secret.withBytes { s in
                        crypto_box_seal_open(
                            dst.baseAddress!.assumingMemoryBound(to: UInt8.self),
                            b.baseAddress!.assumingMemoryBound(to: UInt8.self),
                            UInt64(box.count), p.baseAddress!.assumingMemoryBound(to: UInt8.self),
                            s.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
        }
        guard status == 0 else { key.wipe(); throw .authenticationFailed }
        return key
    }
}
