import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSFuse
import KeychainFSModel

/// `device lock`, which either is in force when it returns or says that it is not (docs/device.md, "When a
/// lock cannot reach its daemon"). A connection closed under it (a flood of the user's connections, a
/// broken pipe) is tried again on a new one within the deadline; the lock is idempotent, so a lock that
/// reached the daemon and lost only its reply is simply confirmed. A daemon stopped by a signal (any
/// process of the user can SIGSTOP it) is continued once and asked again. A daemon that still cannot be
/// reached has its mount's FUSE connection aborted, so it serves nothing more, and the command fails
/// naming what the kernel may still hold.
enum LockThatLands {
    /// Between tries on a new connection.
    static let retryPause: useconds_t = 50_000

    /// `KEYCHAINFS_TEST_DISABLE_GUARDS=lock-lands` (a test device's CLI only): one attempt, as before, so
    /// that the tests of a lock that lands show they can fail.
    static let testSwitch = "lock-lands"

    static func lock(_ vault: Vault) throws -> DaemonStatus {
        let client = ControlClient(vault: vault)
        if TestSwitches.isOff(testSwitch, testDevice: (try? vault.config())?.testDevice ?? false) {
            return try client.call(DeviceLock())
        }
        let deadline = Date().addingTimeInterval(ControlClient.deviceSeconds)
        var continued = false
        while true {
            let failure: KeychainError
            switch attempt(client) {
            case .success(let status): return status
            case .failure(let error): failure = error
            }
            guard failure.status == SecStatus.notAvailable, client.isListening else { throw failure }
            if !continued, let pid = ControlClient.daemonPID(socketPath: client.socketPath),
                ProcStat(pid: pid)?.state == "T"
            {
                continued = true
                kill(pid, SIGCONT)
                FileHandle.standardError.write(
                    Data("keychainfs: the daemon (pid \(pid)) was stopped by a signal: continued it to lock\n".utf8))
                continue
            }
            guard Date() < deadline, !failure.message.contains("the keychainfs daemon (pid") else {
                throw abortMount(vault, after: failure)
            }
            usleep(retryPause)
        }
    }

    /// One lock on a new connection: the state it put in force, or why not.
    private static func attempt(_ client: ControlClient) -> Result<DaemonStatus, KeychainError> {
        do throws(KeychainError) {
            let status = try client.call(DeviceLock())
            guard status.state != DeviceState.unlocked.rawValue else {
                return .failure(
                    KeychainError(
                        SecStatus.internalComponent, "the daemon answered the lock with state \(status.state)"))
            }
            return .success(status)
        } catch {
            return .failure(error)
        }
    }

    /// Writes `1` to the fusectl file `path`: opened for writing only, never created, never through a link.
    private static func writeAbort(_ path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "1", 1) == 1
    }

    /// The last resort: the mount's FUSE connection aborted (the kernel answers every request the daemon
    /// would have, ENOTCONN), so the daemon can serve no read of its own any more.
    private static func abortMount(_ vault: Vault, after error: KeychainError) -> CLIError {
        let mount = MountTable.entries().last { $0.vault == vault.directory }
        guard let mount, let connection = mount.device.split(separator: ":").last else {
            return CLIError("device lock failed: \(error.message)")
        }
        let abort = "/sys/fs/fuse/connections/\(connection)/abort"
        let aborted = writeAbort(abort)
        let what =
            aborted
            ? "aborted the mount's FUSE connection (\(abort)): the daemon serves nothing more, but values the kernel cached from a --kernel-cache read stay readable from the page cache until \(mount.mountpoint) is unmounted and no file of it is open (root: echo 1 > /proc/sys/vm/drop_caches)"
            : "could not abort the mount's FUSE connection (\(abort)): its values stay readable; unmount it (fusermount3 -uz \(mount.mountpoint)) or kill the daemon"
        return CLIError("device lock did not reach the daemon (\(error.message)); \(what)")
    }
}
