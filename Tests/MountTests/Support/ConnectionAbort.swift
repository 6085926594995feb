import Foundation
import TestSupport

/// The way out of a wedged FUSE request: `/sys/fs/fuse/connections/N/abort` (fusectl, mounted here if
/// needed) fails every request in flight, so a test that finds a call hanging frees it and fails, and CI
/// never hangs.
enum ConnectionAbort {
    static func abort(_ mountpoint: String) {
        var st = stat()
        guard stat(mountpoint, &st) == 0 || errno == ENOTCONN else { return }
        let connections = "/sys/fs/fuse/connections"
        if (try? FileManager.default.contentsOfDirectory(atPath: connections))?.isEmpty ?? true {
            _ = Command.run("/bin/mount", ["-t", "fusectl", "fusectl", connections], timeout: 5)
        }
        let minor = UInt32((st.st_dev & 0xff) | ((st.st_dev >> 12) & 0xfff00))
        try? "1".write(toFile: "\(connections)/\(minor)/abort", atomically: false, encoding: .utf8)
    }

    /// Runs `executable ARGS`; if it has not ended within `seconds`, aborts the mount's connection (which ends
    /// it) and reports the hang. Returns the exit status, or nil for a hang.
    static func runOrAbort(_ executable: String, _ arguments: [String], mount: String, seconds: TimeInterval = 5) -> Int32? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        guard (try? process.run()) != nil else { return -1 }
        if done.wait(timeout: .now() + seconds) == .success { return process.terminationStatus }
        abort(mount)
        kill(process.processIdentifier, SIGKILL)
        _ = done.wait(timeout: .now() + 10)
        return nil
    }
}
