import Foundation
import KeychainFSTestSupport

/// The way out of a wedged FUSE request: `/sys/fs/fuse/connections/N/abort` (fusectl, mounted here if
/// needed) fails every request in flight, so a test that finds a call hanging frees it and fails, and CI
/// never hangs.
enum ConnectionAbort {
    static func abort(_ mountpoint: String) {
        // Nothing mounted there: nothing to abort. (Never a stat of the mountpoint: it may hang on the very
        // connection this is meant to free.)
        guard let minor = connection(mountedAt: mountpoint) else { return }
        let connections = "/sys/fs/fuse/connections"
        if (try? FileManager.default.contentsOfDirectory(atPath: connections))?.isEmpty ?? true {
            _ = Command.run("/bin/mount", ["-t", "fusectl", "fusectl", connections], timeout: 5)
        }
        try? "1".write(toFile: "\(connections)/\(minor)/abort", atomically: false, encoding: .utf8)
    }

    /// The connection of the mount at `mountpoint`, from /proc/self/mountinfo: a stat could wait forever
    /// on a connection whose daemon cannot answer. (Mountpoints here have no characters mountinfo escapes.)
    static func connection(mountedAt mountpoint: String) -> UInt32? {
        let table = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
        let device = table.split(separator: "\n").map { $0.split(separator: " ") }.last {
            $0.count > 4 && $0[4] == mountpoint
        }?[2]
        guard let device, device.hasPrefix("0:") else { return nil }
        return UInt32(device.dropFirst(2))
    }

    /// Runs `executable ARGS`; if it has not ended within `seconds`, aborts the mount's connection (which ends
    /// it) and reports the hang. Returns the exit status, or nil for a hang.
    static func runOrAbort(_ executable: String, _ arguments: [String], mount: String, seconds: TimeInterval = 5)
        -> Int32?
    {
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
