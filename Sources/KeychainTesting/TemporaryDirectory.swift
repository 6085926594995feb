import Foundation
import KeychainEngine
import KeychainModel

/// A device's private directory: made 0700 by mkdtemp under the temporary directory, removed with it.
enum TemporaryDirectory {
    static func make() throws(KeychainError) -> String {
        var template = Array((NSTemporaryDirectory() + "/keychaintesting-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw KeychainError(SecStatus.io, "cannot make a temporary directory for a simulated device (errno \(errno))")
        }
        return URL(fileURLWithPath: String(cString: made)).standardizedFileURL.path
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}
