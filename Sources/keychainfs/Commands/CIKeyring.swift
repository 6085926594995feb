import ArgumentParser
import Foundation
import KeychainFSChildProcesses

/// `keychainfs ci-keyring -- COMMAND [ARG]…`: COMMAND with a Secret Service of its own (docs/ci.md): a
/// throwaway vault, unlocked, on a private bus; exits with COMMAND's status and leaves nothing behind.
struct CIKeyring: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ci-keyring",
        abstract: "Run a command with a throwaway, unlocked Secret Service keyring on a private D-Bus.",
        discussion: """
            COMMAND gets DBUS_SESSION_BUS_ADDRESS (a private bus whose org.freedesktop.secrets is a vault made \
            for this run), KEYCHAIN_VAULT (so 'keychainfs device lock' and the security verbs reach it) and \
            KEYCHAIN_CI_PASSCODE (the device's passcode, for 'keychainfs device unlock --passcode-stdin'). \
            keychainfs exits with COMMAND's status (128+N when a signal N ended it; 126 when it cannot be run, \
            127 when it is not found), after stopping the service and removing the vault. SIGTERM, SIGHUP and \
            SIGINT are passed on to COMMAND. docs/ci.md.
            """)

    @Argument(parsing: .postTerminator, help: "The command and its arguments (after --).")
    var command: [String] = []

    func validate() throws {
        if command.isEmpty {
            throw ValidationError("say which command to run: keychainfs ci-keyring -- COMMAND [ARG]…")
        }
    }

    func run() throws {
        guard let program = Self.resolve(command[0]) else {
            throw failWorkflow("ci-keyring", "\(command[0]): command not found", code: ExitCode(127))
        }
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        SignalForwarding.install()
        let keyring = try ThrowawayKeyring(executable: executable)
        defer { keyring.stop() }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = keyring.busAddress
        environment["KEYCHAIN_VAULT"] = keyring.vault.directory
        environment["KEYCHAIN_CI_PASSCODE"] = keyring.passcode
        for name in ["DBUS_STARTER_ADDRESS", "KEYCHAIN_MOUNT"] { environment[name] = nil }
        let status = try Self.runToEnd(program, Array(command.dropFirst()), environment: environment)
        keyring.stop()
        if status != 0 { throw ExitCode(status) }
    }

    /// `name` as execvp finds it: a path if it has a slash, else the first executable of that name on PATH.
    static func resolve(_ name: String) -> String? {
        if name.contains("/") { return FileManager.default.fileExists(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// Runs the command on our terminal and descriptors, passing on the signals that ask it to end
    /// (``SignalForwarding``, installed before the keyring starts), and returns its status as a shell
    /// reports it. A signal that came while the keyring started ends the run before the command does.
    static func runToEnd(_ program: String, _ arguments: [String], environment: [String: String]) throws -> Int32 {
        if let signal = SignalForwarding.received { return 128 + signal }
        let pid: pid_t
        do {
            pid = try ChildProcess.spawn(
                program, arguments, environment: environment, stdin: .descriptor(0), stdout: .descriptor(1),
                stderr: .descriptor(2))
        } catch {
            throw failWorkflow("ci-keyring", "\(error)", code: ExitCode(error.code == ENOENT ? 127 : 126))
        }
        SignalForwarding.forward(to: pid)
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : 128 + signal
    }
}
