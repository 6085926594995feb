import Foundation
import KeychainFSEngine
import KeychainFSModel
import Synchronization

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

    /// The directories of devices alive in this process: removed at exit too, for a device a test leaks
    /// or keeps in a static (a deinit that never runs).
    private static let live = Mutex<Set<String>>([])

    /// Once per process, before the first directory: the exit hook, and the sweep of earlier runs' leftovers.
    private static let prepared: Void = {
        atexit { TemporaryDirectory.removeLive() }
        sweepDeadProcesses()
    }()

    static func make() throws(KeychainError) -> String {
        _ = prepared
        // The owner's pid in the name, so that a later process can tell a dead run's directory from a live one.
        var template = Array((base + "/keychaintesting-\(getpid())-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw KeychainError(
                SecStatus.io, "cannot make a temporary directory for a simulated device under \(base) (errno \(errno))")
        }
        let path = URL(fileURLWithPath: String(cString: made)).standardizedFileURL.path
        live.withLock { _ = $0.insert(path) }
        return path
    }

    static func remove(_ path: String) {
        live.withLock { _ = $0.remove(path) }
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func removeLive() {
        for path in live.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }

    /// How many entries of the base directory the sweep looks at (a shared /dev/shm can hold many).
    static let sweepLimit = 4096

    /// Removes the directories that processes no longer alive left (killed, or crashed before their exit
    /// hook): this user's own `keychaintesting-<pid>-…` directories whose pid is gone.
    static func sweepDeadProcesses() {
        guard let directory = opendir(base) else { return }
        defer { closedir(directory) }
        var dead: [String] = []
        for _ in 0..<sweepLimit {
            guard let entry = readdir(directory) else { break }
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let pid = ownerPID(ofDirectoryNamed: name), kill(pid, 0) != 0, errno == ESRCH else { continue }
            var status = stat()
            let path = base + "/" + name
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid() else {
                continue
            }
            dead.append(path)
        }
        for path in dead { try? FileManager.default.removeItem(atPath: path) }
    }

    /// The pid in a device directory's name (`keychaintesting-<pid>-XXXXXX`), nil for any other name.
    static func ownerPID(ofDirectoryNamed name: String) -> pid_t? {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "keychaintesting", parts[2].count == 6, let pid = pid_t(parts[1]),
            pid > 0
        else { return nil }
        return pid
    }
}
