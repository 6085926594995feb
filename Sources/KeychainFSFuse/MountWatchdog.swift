import KeychainFSChildProcesses
import Foundation

/// Takes a mount down after its daemon dies, however it dies (docs/filesystem.md). `auto_unmount` acts
/// when the daemon's descriptors close, but a daemon killed while one of its threads waits in the kernel
/// for a directory lock (a dentry invalidation behind a `mkdir` that nobody will answer) never closes
/// them: its threads are gone but that one, the process stays a zombie holding `/dev/fuse` and
/// `daemon.lock`, and the writers and any new `mount` of the vault hang. Only aborting the connection
/// ends the `mkdir`, which frees the thread.
///
/// The watchdog is a small shell process started after the mount, in its own session, holding nothing of
/// the daemon's (no descriptor but its end of a pipe; its directory is /). It waits on the pipe and looks
/// at the daemon five times a second. When the daemon is a zombie or gone, or the pipe ends without the
/// daemon saying goodbye, it aborts the connection (`/sys/fs/fuse/connections/N/abort`) if it is still
/// there and lazily unmounts the mountpoint if the mount there is still that connection. A daemon that
/// unmounts normally says goodbye first, and the watchdog exits.
final class MountWatchdog: Sendable {
    private let pipe: Int32

    /// The script; arguments: the daemon's pid, the connection's number, the mountpoint.
    static let script = #"""
        pid=$1 connection=$2 mountpoint=$3
        cd /
        while :; do
            read -r -t 0.2 line; status=$?
            if (( status == 0 )); then [[ $line == goodbye ]] && exit 0; continue; fi
            if (( status > 128 )); then
                stat=; { read -r stat < /proc/$pid/stat; } 2>/dev/null
                state=${stat##*) }; state=${state%% *}
                [[ -n $stat && $state != Z && $state != X ]] && continue
            fi
            break
        done
        connections=/sys/fs/fuse/connections
        [[ -e $connections/$connection ]] || mount -t fusectl fusectl $connections 2>/dev/null
        [[ -e $connections/$connection/abort ]] && echo 1 > $connections/$connection/abort
        while read -r _ _ device _; do
            if [[ $device == 0:$connection ]]; then
                umount -l -- "$mountpoint" 2>/dev/null || fusermount3 -u -z -- "$mountpoint" 2>/dev/null
                break
            fi
        done < /proc/self/mountinfo
        """#

    /// Starts the watchdog of the mount at `mountpoint` (already mounted); nil if it cannot be started
    /// (then only `auto_unmount` covers the daemon's death).
    init?(mountpoint: String) {
        guard let connection = Self.connection(mountedAt: mountpoint) else { return nil }
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { return nil }
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        // Nothing of the daemon's (/dev/fuse or daemon.lock held here would keep the dead mount alive), its own
        // session, default signals (the daemon blocks its termination signals): ChildProcess's way.
        let child: pid_t
        do {
            child = try ChildProcess.spawn(
                "/bin/bash",
                ["-c", Self.script, "keychainfs-watchdog", String(getpid()), connection, mountpoint],
                environment: ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin"], stdin: .descriptor(ends[0]),
                newSession: true)
        } catch {
            close(ends[0])
            close(ends[1])
            return nil
        }
        close(ends[0])
        pipe = ends[1]
        // Reaped when it exits, so it never lingers as a zombie of a long-lived daemon.
        _ = Exit(child)
    }

    /// The fusectl number of the FUSE mount at `mountpoint` (its anonymous device's minor), from
    /// /proc/self/mountinfo: a stat of the mountpoint would wait for the INIT the loop has yet to answer.
    static func connection(mountedAt mountpoint: String) -> String? {
        // The last mount there is the one just made.
        let mount = MountTable.all().last { $0.mountpoint == mountpoint && $0.device.hasPrefix("0:") }
        return mount.map { String($0.device.dropFirst(2)) }
    }

    /// The mount ended normally: the watchdog exits without touching anything.
    func dismiss() {
        _ = "goodbye\n".withCString { write(pipe, $0, strlen($0)) }
        close(pipe)
    }
}
