import ControlChannel
import Foundation
import KeychainEngine
import KeychainModel

/// Starts the daemon as a detached child (its own session, output to the vault's log) and returns
/// once the mount serves requests, or fails with the daemon's own words.
enum Background {
    static func start(arguments: [String], vault: Vault, mountpoint: String) throws {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Opened here, never through a symlink planted at the log's name nor blocking on a FIFO, and handed over.
        let log: Int32
        do { log = try vault.openLog() } catch { throw CLIError("the daemon log: \(error.message)") }
        defer { close(log) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, log, 1)
        posix_spawn_file_actions_adddup2(&actions, log, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        let setsid: Int16 = 0x80  // POSIX_SPAWN_SETSID: no terminal signal reaches the daemon
        posix_spawnattr_setflags(&attributes, setsid)
        closeInheritedDescriptorsOnExec()
        let logStart = (try? FileManager.default.attributesOfItem(atPath: vault.logPath)[.size] as? Int) ?? 0

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw CLIError("cannot start the daemon: \(String(cString: strerror(spawned)))") }

        let deadline = Date().addingTimeInterval(20)
        let client = ControlClient(vault: vault)
        while Date() < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                throw CLIError("the daemon exited:\n" + logTail(vault.logPath, from: logStart))
            }
            if MountTable.isMounted(mountpoint), client.isDaemonRunning {
                print("mounted \(vault.directory) at \(mountpoint) (daemon pid \(pid), log \(vault.logPath))")
                return
            }
            usleep(20_000)
        }
        kill(pid, SIGTERM)
        throw CLIError("the daemon did not become ready within 20 s:\n" + logTail(vault.logPath, from: logStart))
    }

    /// The daemon outlives this process: it must not inherit descriptors the caller gave us (a parent
    /// watching one of them for EOF, like Foundation's Process does, would wait for the daemon to exit).
    private static func closeInheritedDescriptorsOnExec() {
        guard let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return }
        for fd in fds.compactMap(Int32.init) where fd > 2 {
            _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
        }
    }

    private static func logTail(_ path: String, from offset: Int) -> String {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return "(no log output)" }
        let data = FileHandle(fileDescriptor: fd, closeOnDealloc: true).readDataToEndOfFile()
        guard data.count > offset else { return "(no log output)" }
        return String(decoding: data.suffix(from: offset).suffix(4000), as: UTF8.self)
    }
}
