import KeychainFSChildProcesses
import KeychainFSControlChannel
import KeychainFSFuse
import Foundation
import KeychainFSEngine
import KeychainFSModel

/// Starts the daemon as a detached child (its own session, output to the vault's log) and returns
/// once the mount serves requests, or fails with the daemon's own words.
enum Background {
    static func start(arguments: [String], vault: Vault, mountpoint: String) throws {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        // Opened here, never through a symlink planted at the log's name nor blocking on a FIFO, and handed over.
        let log: Int32
        do { log = try vault.openLog() } catch { throw CLIError("the daemon log: \(error.message)") }
        defer { close(log) }
        let logStart = (try? FileManager.default.attributesOfItem(atPath: vault.logPath)[.size] as? Int) ?? 0
        // Its own session: no terminal signal reaches the daemon. It outlives this process, so it gets none
        // of the descriptors our caller gave us (a parent watching one for EOF would wait for the daemon).
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(
                executable, arguments, stdout: .descriptor(log), stderr: .descriptor(log), newSession: true)
        } catch {
            throw CLIError("cannot start the daemon: \(error)")
        }

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

    private static func logTail(_ path: String, from offset: Int) -> String {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return "(no log output)" }
        let data = FileHandle(fileDescriptor: fd, closeOnDealloc: true).readDataToEndOfFile()
        guard data.count > offset else { return "(no log output)" }
        return String(decoding: data.suffix(from: offset).suffix(4000), as: UTF8.self)
    }
}
