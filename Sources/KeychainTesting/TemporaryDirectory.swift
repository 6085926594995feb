import Foundation
import KeychainFSEngine
import KeychainFSModel

/// A device's private directory: made 0700 by mkdtemp, removed with the device. It goes where making and
/// deleting small files costs least: `$KEYCHAINTESTING_DIRECTORY` if set, else `/dev/shm` when it is a
/// tmpfs (memory: a disk filesystem's inode work was most of a device's cost), else `$TMPDIR`.
enum TemporaryDirectory {
    static let base: String = {
        if let chosen = ProcessInfo.processInfo.environment["KEYCHAINTESTING_DIRECTORY"], !chosen.isEmpty {
            return chosen
        }
        let mounts = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
        let shmIsTmpfs = mounts.split(separator: "\n").contains {
            $0.split(separator: " ").prefix(3).dropFirst().elementsEqual(["/dev/shm", "tmpfs"])
        }
        if shmIsTmpfs, access("/dev/shm", W_OK | X_OK) == 0 { return "/dev/shm" }
        return NSTemporaryDirectory()
    }()

    static func make() throws(KeychainError) -> String {
        var template = Array((base + "/keychaintesting-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw KeychainError(
                SecStatus.io, "cannot make a temporary directory for a simulated device under \(base) (errno \(errno))")
        }
        return URL(fileURLWithPath: String(cString: made)).standardizedFileURL.path
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}
