import KeychainFSCSodium
import Foundation

/// XChaCha20-Poly1305 (IETF) authenticated encryption. A sealed box is `nonce ‖ ciphertext ‖ tag`
/// with a fresh random 24-byte nonce, bound to caller-chosen associated data.
package enum AEAD {
    static let nonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let tagBytes = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    /// Encrypts `plaintext` under `key`, authenticating `associatedData` too.
    package static func seal(_ plaintext: some DataProtocol, key: GuardedKey, associatedData: Data) -> Data {
        Sodium.ensureInitialised()
        let message = Data(plaintext)
        var box = Data(count: nonceBytes + message.count + tagBytes)
        box.withUnsafeMutableBytes { out in
            let nonce = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
            randombytes_buf(nonce, nonceBytes)
            var written: UInt64 = 0
            key.withBytes { k in
                message.withUnsafeBytes { m in
                    associatedData.withUnsafeBytes { ad in
                        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                            nonce + nonceBytes, &written,
                            m.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count),
                            ad.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count),
                            nil, nonce, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
        }
        return box
    }

    /// Decrypts a box made by ``seal(_:key:associatedData:)``; fails unless key, associated data and box all match.
    package static func open(_ box: Data, key: GuardedKey, associatedData: Data) throws(CryptoError) -> Data {
        let plainCount = try plaintextCount(box)
        var plain = Data(count: plainCount)
        try decrypt(box, key: key, associatedData: associatedData) { dst in
            plain.withUnsafeMutableBytes { dst($0) }
        }
        return plain
    }

    /// Decrypts a wrapped key straight into guarded memory.
    package static func openKey(_ box: Data, key: GuardedKey, associatedData: Data) throws(CryptoError) -> GuardedKey {
        guard try plaintextCount(box) == GuardedKey.byteCount else {
            throw .badKeyLength(box.count - nonceBytes - tagBytes)
        }
        var failed = false
        let unwrapped = GuardedKey.filled { dst in
            do { try decrypt(box, key: key, associatedData: associatedData) { $0(dst) } } catch { failed = true }
        }
        if failed { unwrapped.wipe(); throw .authenticationFailed }
        return unwrapped
    }

    /// Decrypts a wrapped key into `destination`'s guarded memory (no new allocation); on failure the
    /// destination is zeroed.
    package static func openKey(_ box: Data, key: GuardedKey, associatedData: Data, into destination: GuardedKey)
        throws(CryptoError)
    {
        guard try plaintextCount(box) == GuardedKey.byteCount else {
            throw .badKeyLength(box.count - nonceBytes - tagBytes)
        }
        var failed = false
        destination.overwrite { dst in
            do { try decrypt(box, key: key, associatedData: associatedData) { $0(dst) } } catch { failed = true }
        }
        if failed { destination.zero(); throw .authenticationFailed }
    }

    /// The length of what `box` opens to, read from its size alone (nil for a box too short to be one).
    package static func plaintextLength(_ box: Data) -> Int? {
        box.count >= nonceBytes + tagBytes ? box.count - nonceBytes - tagBytes : nil
    }

    private static func plaintextCount(_ box: Data) throws(CryptoError) -> Int {
        guard let count = plaintextLength(box) else { throw .truncated }
        return count
    }

    /// Runs the decryption into the buffer that `withDestination` provides.
    private static func decrypt(
        _ box: Data, key: GuardedKey, associatedData: Data,
        into withDestination: ((UnsafeMutableRawBufferPointer) -> Int32) -> Int32
    ) throws(CryptoError) {
        Sodium.ensureInitialised()
        let result = withDestination { dst in
            box.withUnsafeBytes { b in
                associatedData.withUnsafeBytes { ad in
                    key.withBytes { k in
                        let base = b.baseAddress!.assumingMemoryBound(to: UInt8.self)
                        var written: UInt64 = 0
                        return crypto_aead_xchacha20poly1305_ietf_decrypt(
                            dst.baseAddress?.assumingMemoryBound(to: UInt8.self)
                                ?? UnsafeMutablePointer(mutating: base), &written, nil,
                            base + nonceBytes, UInt64(box.count - nonceBytes),
                            ad.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(associatedData.count),
                            base, k.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
        }
        guard result == 0 else { throw .authenticationFailed }
    }
}
