import Foundation
import KeychainFSTestSupport

/// A client script left running while the test acts (a signal watcher, a client that vanishes mid-prompt):
/// started with Command.start (posix_spawn, as every program is), its output read line by line, killed
/// and waited for when the test ends.
final class RunningClient {
    let pid: pid_t
    let lines: LineReader
    private var ended = false

    /// `Clients/SCRIPT.py ARGUMENTS` with Debian's python3 on `bus`.
    init(_ script: String, _ arguments: [String], on bus: SessionBus) throws {
        guard
            let started = Command.start(
                "/usr/bin/python3", [ServedVault.clients + "/" + script + ".py"] + arguments,
                environment: bus.environment)
        else { throw ClientStartFailed() }
        pid = started.pid
        lines = LineReader(FileHandle(fileDescriptor: started.stdout, closeOnDealloc: true))
    }

    struct ClientStartFailed: Error {}

    /// Kills the client (SIGKILL: it vanishes without a word) and waits for it; once.
    func kill() {
        guard !ended else { return }
        ended = true
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    deinit { kill() }
}
