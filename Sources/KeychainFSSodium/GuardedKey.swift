import KeychainFSCSodium
import Foundation

/// A 32-byte symmetric key held in guarded memory (`sodium_malloc`: guard pages, mlock, no core dump)
/// and wiped with `sodium_memzero` the moment ``wipe()`` is called or the key is released.
///
/// Owners wipe keys explicitly when their protection class becomes unavailable; the instance is
/// shared only under its owner's lock, hence `@unchecked Sendable`.
package final class GuardedKey: @unchecked Sendable {
    /// Size of every key handled by the crypto core.
    package static let byteCount = 32

    private var pointer: UnsafeMutableRawPointer?

    private init() {
        Sodium.ensureInitialised()
        guard let memory = sodium_malloc(Self.byteCount) else { fatalError("sodium_malloc failed: out of memory") }
        pointer = memory
    }

    /// A fresh random key.
    package static func random() -> GuardedKey {
        let key = GuardedKey()
        randombytes_buf(key.pointer!, byteCount)
        return key
    }

    /// Builds a key by letting `fill` write exactly ``byteCount`` bytes into guarded memory.
    package static func filled(_ fill: (UnsafeMutableRawBufferPointer) throws -> Void) rethrows -> GuardedKey {
        let key = GuardedKey()
        try fill(UnsafeMutableRawBufferPointer(start: key.pointer!, count: byteCount))
        return key
    }

    /// A key holding a copy of `bytes` (which must be ``byteCount`` long).
    package static func copying(_ bytes: Data) throws(CryptoError) -> GuardedKey {
        guard bytes.count == byteCount else { throw .badKeyLength(bytes.count) }
        return filled { dst in _ = bytes.copyBytes(to: dst) }
    }

    /// Overwrites the key with fresh random bytes (reusing its guarded memory).
    package func randomize() {
        guard let pointer else { fatalError("use of a wiped key") }
        randombytes_buf(pointer, Self.byteCount)
    }

    /// Zeroes the key but keeps its guarded memory for reuse.
    package func zero() {
        guard let pointer else { return }
        sodium_memzero(pointer, Self.byteCount)
    }

    /// Gives `body` the key's memory to write into (reusing its guarded memory).
    func overwrite(_ body: (UnsafeMutableRawBufferPointer) -> Void) {
        guard let pointer else { fatalError("use of a wiped key") }
        body(UnsafeMutableRawBufferPointer(start: pointer, count: Self.byteCount))
    }

    /// True once the key has been wiped.
    package var isWiped: Bool { pointer == nil }

    /// Calls `body` with the key bytes. The buffer must not escape.
    package func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard let pointer else { fatalError("use of a wiped key") }
        return try body(UnsafeRawBufferPointer(start: pointer, count: Self.byteCount))
    }

    /// Zeroes and frees the key memory now.
    package func wipe() {
        guard let pointer else { return }
        sodium_memzero(pointer, Self.byteCount)
        sodium_free(pointer)
        self.pointer = nil
    }

    deinit { wipe() }
}
