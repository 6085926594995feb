import KeychainFSModel
import KeychainFSStore
import Foundation

extension Keychain {
    /// The largest secret (kSecValueData) an item holds: the same limit in-process, through the daemon
    /// and through the filesystem, so a value that can be stored can be read back on every path.
    public static let maxValueBytes = 1 << 20

    /// errSecParam for a value over ``maxValueBytes``.
    static func checkValueSize(_ data: Data?) throws(KeychainError) {
        guard let data, data.count > maxValueBytes else { return }
        throw .param("a value is at most \(maxValueBytes) bytes (1 MiB); this one is \(data.count) bytes")
    }
}
