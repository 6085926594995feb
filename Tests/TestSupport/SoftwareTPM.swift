import Foundation

/// Debian's swtpm for one test: a TPM 2.0 of its own, its state in a fresh directory, reached through a
/// UNIX socket there (no port to collide, no other user to connect), killed and waited for when the test
/// ends. Each one has its own seeds: a key sealed by one is refused by every other.
public final class SoftwareTPM: @unchecked Sendable {
    public static let executable = "/usr/bin/swtpm"
    /// Whether swtpm is installed (`scripts/install-deps.sh` installs it).
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    public let directory: String
    public let pid: pid_t
    private var stopped = false

    /// The TCTI that reaches it, for `--tpm-tcti` and KEYCHAINFS_TPM_TCTI.
    public var tcti: String { "swtpm:path=\(directory)/tpm.sock" }
    /// tpm2-tools' environment for it.
    public var toolsEnvironment: [String: String] { ["TPM2TOOLS_TCTI": tcti] }

    /// Starts it and waits (10 s at most) for its socket.
    public init() throws {
        directory = TestDirectory.root + "/swtpm-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let socket = directory + "/tpm.sock"
        guard
            let started = Command.start(
                Self.executable,
                [
                    "socket", "--tpm2", "--tpmstate", "dir=\(directory)", "--server", "type=unixio,path=\(socket)",
                    "--ctrl", "type=unixio,path=\(socket).ctrl", "--flags", "not-need-init,startup-clear",
                ])
        else { throw StartFailed(reason: "cannot run \(Self.executable)") }
        close(started.stdout)
        pid = started.pid
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket + ".ctrl")
            || !FileManager.default.fileExists(atPath: socket)
        {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                stopped = true
                throw StartFailed(reason: "swtpm exited with status \(status)")
            }
            guard Date() < deadline else {
                stop()
                throw StartFailed(reason: "swtpm made no socket within 10 s")
            }
            usleep(10_000)
        }
    }

    public struct StartFailed: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// Runs a tpm2-tools command on it.
    public func tool(_ name: String, _ arguments: [String]) -> CommandResult {
        Command.run("/usr/bin/" + name, arguments, environment: toolsEnvironment)
    }

    deinit { stop() }

    /// Kills it and waits for it; once.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
