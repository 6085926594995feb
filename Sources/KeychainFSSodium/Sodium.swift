import KeychainFSCSodium
import Foundation

/// Entry point of the crypto core: makes sure libsodium is initialised before any other call.
package enum Sodium {
    private static let initialised: Bool = sodium_init() >= 0

    /// Initialises libsodium (idempotent, thread-safe). Every public type of this module calls it.
    @discardableResult
    package static func ensureInitialised() -> Bool {
        precondition(initialised, "libsodium could not be initialised")
        return initialised
    }

    /// `count` bytes from the system CSPRNG.
    package static func randomBytes(_ count: Int) -> Data {
        ensureInitialised()
        var data = Data(count: count)
        data.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, count) }
        return data
    }

    /// Whether `a` and `b` hold the same bytes, compared in constant time (MACs, tags).
    package static func constantTimeEqual(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in sodium_memcmp(x.baseAddress!, y.baseAddress!, a.count) == 0 }
        }
    }

    /// Overwrites `data` with zeros in a way the optimiser keeps.
    package static func wipe(_ data: inout Data) {
        let count = data.count
        guard count > 0 else { return }
        data.withUnsafeMutableBytes { sodium_memzero($0.baseAddress!, count) }
    }
}
