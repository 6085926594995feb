import KeychainFSCSodium
import Foundation

/// Argon2id work limits, named as libsodium names them.
package enum PasscodeHardness: String, Codable, Sendable, CaseIterable {
    /// ~120 ms here: for test devices.
    case interactive
    /// ~600 ms here: the default, as the SPEC asks.
    case moderate
    /// Argon2id's minimum (1 pass, 8 KiB): a KeychainTesting device's, made per test. The engine opens a
    /// keybag marked with it only on a virtual clock, so no vault a daemon serves can use it.
    case simulated

    var limits: (ops: UInt64, mem: Int) {
        switch self {
        case .interactive: (UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE), Int(crypto_pwhash_MEMLIMIT_INTERACTIVE))
        case .moderate: (UInt64(crypto_pwhash_OPSLIMIT_MODERATE), Int(crypto_pwhash_MEMLIMIT_MODERATE))
        case .simulated: (UInt64(crypto_pwhash_OPSLIMIT_MIN), Int(crypto_pwhash_MEMLIMIT_MIN))
        }
    }
}

/// Key derivation: Argon2id for passcodes, keyed BLAKE2b for entangling and sub-keys.
package enum KeyDerivation {
    /// Length of an Argon2id salt.
    package static let saltBytes = Int(crypto_pwhash_SALTBYTES)

    /// Argon2id(passcode, salt) into guarded memory.
    package static func passcodeKey(_ passcode: Data, salt: Data, hardness: PasscodeHardness) throws(CryptoError)
        -> GuardedKey
    {
        let (ops, mem) = hardness.limits
        return try argon2id(passcode, salt: salt, ops: ops, mem: mem)
    }

    /// Argon2id(password, salt) with light limits (2 passes, 8 MiB, ~15 ms): an item's application password
    /// (SecAccessControl's `.applicationPassword`) is derived on every use of its secret.
    package static func applicationPasswordKey(_ password: Data, salt: Data) throws(CryptoError) -> GuardedKey {
        try argon2id(password, salt: salt, ops: 2, mem: 8 << 20)
    }

    private static func argon2id(_ passcode: Data, salt: Data, ops: UInt64, mem: Int) throws(CryptoError) -> GuardedKey
    {
        Sodium.ensureInitialised()
        guard salt.count == saltBytes else { throw .kdfFailed }
        var status: Int32 = -1
        let empty: CChar = 0  // an empty password has no base address to pass
        let key = GuardedKey.filled { dst in
            status = passcode.withUnsafeBytes { p in
                salt.withUnsafeBytes { s in
                    withUnsafePointer(to: empty) { nothing in
                        crypto_pwhash(
                            dst.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(GuardedKey.byteCount),
                            p.baseAddress?.assumingMemoryBound(to: CChar.self) ?? nothing, UInt64(passcode.count),
                            s.baseAddress!.assumingMemoryBound(to: UInt8.self), ops, mem, crypto_pwhash_ALG_ARGON2ID13)
                    }
                }
            }
        }
        guard status == 0 else { key.wipe(); throw .kdfFailed }
        return key
    }

    /// A sub-key: BLAKE2b keyed with `key` over `context ‖ input`, into guarded memory.
    /// Used to entangle a passcode key with the device key and to derive purpose-bound keys.
    package static func subkey(of key: GuardedKey, context: String, input: GuardedKey? = nil) -> GuardedKey {
        GuardedKey.filled { dst in
            var hash = Blake2b(key: key, outputBytes: GuardedKey.byteCount)
            hash.update(Data(context.utf8))
            input?.withBytes { hash.update($0) }
            hash.finish(into: dst)
        }
    }

    /// Keyed BLAKE2b of `parts` (each length-prefixed so that concatenations cannot collide), `outputBytes` long.
    package static func keyedHash(_ parts: [Data], key: GuardedKey, outputBytes: Int = 16) -> Data {
        var hash = Blake2b(key: key, outputBytes: outputBytes)
        for part in parts {
            withUnsafeBytes(of: UInt32(part.count).bigEndian) { hash.update($0) }
            hash.update(part)
        }
        var out = Data(count: outputBytes)
        out.withUnsafeMutableBytes { hash.finish(into: $0) }
        return out
    }

    /// ``keyedHash(_:key:outputBytes:)`` of two parts, the same bytes hashed in one libsodium call with
    /// nothing allocated but the result: a lookup column's hash, a dozen of them per SecItem call (measured:
    /// the incremental state, its wiping and the parts' copies cost twice the hashing itself).
    package static func keyedHash(
        _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer, key: GuardedKey,
        outputBytes: Int = 16
    ) -> Data {
        Sodium.ensureInitialised()
        let length = 8 + first.count + second.count
        return withUnsafeTemporaryAllocation(byteCount: length, alignment: 1) { message in
            message.storeBytes(of: UInt32(first.count).bigEndian, toByteOffset: 0, as: UInt32.self)
            UnsafeMutableRawBufferPointer(rebasing: message[4..<(4 + first.count)]).copyMemory(from: first)
            message.storeBytes(of: UInt32(second.count).bigEndian, toByteOffset: 4 + first.count, as: UInt32.self)
            UnsafeMutableRawBufferPointer(rebasing: message[(8 + first.count)...]).copyMemory(from: second)
            var out = Data(count: outputBytes)
            out.withUnsafeMutableBytes { o in
                key.withBytes { k in
                    _ = crypto_generichash(
                        o.baseAddress!.assumingMemoryBound(to: UInt8.self), outputBytes,
                        message.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(length),
                        k.baseAddress!.assumingMemoryBound(to: UInt8.self), k.count)
                }
            }
            sodium_memzero(message.baseAddress!, length)  // attribute values do not linger on the stack
            return out
        }
    }
}

/// Incremental keyed BLAKE2b. libsodium's state is 64-byte aligned, which Swift cannot import,
/// so it lives in aligned heap memory that is wiped when the hash finishes.
struct Blake2b: ~Copyable {
    private let state: UnsafeMutableRawPointer
    private let size = crypto_generichash_statebytes()
    private let outputBytes: Int

    init(key: GuardedKey, outputBytes: Int) {
        Sodium.ensureInitialised()
        state = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        self.outputBytes = outputBytes
        key.withBytes { k in
            _ = crypto_generichash_init(
                OpaquePointer(state), k.baseAddress!.assumingMemoryBound(to: UInt8.self), k.count, outputBytes)
        }
    }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        _ = crypto_generichash_update(
            OpaquePointer(state), base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    mutating func update(_ data: Data) { data.withUnsafeBytes { update($0) } }

    mutating func finish(into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count == outputBytes)
        _ = crypto_generichash_final(
            OpaquePointer(state), out.baseAddress!.assumingMemoryBound(to: UInt8.self), outputBytes)
    }

    deinit {
        sodium_memzero(state, size)
        state.deallocate()
    }
}
