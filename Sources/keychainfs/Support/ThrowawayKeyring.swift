import Foundation
import KeychainFSChildProcesses
import KeychainFSControlChannel
import KeychainFSEngine
import KeychainFSModel

/// The keyring of `keychainfs ci-keyring` (docs/ci.md): a vault made for one run in a directory of its own,
/// served as the Secret Service on a private bus by a `keychainfs secret-service` child, unlocked, with a
/// passcode made for the run; ``stop()`` ends the child (and so its bus) and removes the directory.
final class ThrowawayKeyring {
    let directory: String
    let vault: Vault
    /// DBUS_SESSION_BUS_ADDRESS of the private bus.
    private(set) var busAddress = ""
    /// The device's passcode, given to the command as KEYCHAIN_CI_PASSCODE to test locked paths.
    let passcode: String
    private var service: pid_t = 0
    private var logPath: String { directory + "/secret-service.log" }

    /// How long the service may take to serve.
    static let startDeadline: TimeInterval = 30
    /// How long it may take to stop on SIGTERM before it is killed.
    static let stopDeadline: TimeInterval = 10

    init(executable: String) throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/keychainfs-ci.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CLIError("cannot make a directory under \(base): \(String(cString: strerror(errno)))")
        }
        directory = String(cString: made)
        vault = Vault(directory: directory + "/vault")
        passcode = String(format: "%06u", UInt32.random(in: 0..<1_000_000))
        do { try start(executable) } catch {
            stop()
            throw error
        }
    }

    /// The environment of the keyring's own processes: the run's state directory (its device key), no
    /// session bus of the caller's, no test switch.
    private var serviceEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = directory + "/state"
        for name in ["DBUS_SESSION_BUS_ADDRESS", "DBUS_STARTER_ADDRESS", TestSwitches.environmentVariable] {
            environment[name] = nil
        }
        return environment
    }

    private func start(_ executable: String) throws {
        let made = try ChildProcess.run(
            executable, ["init", vault.directory, "--test-device"], environment: serviceEnvironment, timeout: 60)
        guard made.status == 0 else {
            throw CLIError("cannot make the keyring's vault: " + String(decoding: made.stderr, as: UTF8.self))
        }
        // A new file in the run's own 0700 directory, never one planted at its name.
        let log = open(logPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        var output: [Int32] = [-1, -1]
        guard log >= 0, pipe(&output) == 0 else { throw CLIError("cannot start the keyring's Secret Service") }
        defer { close(log) }
        for fd in output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // Through setpriv when there is one: the service (and its bus) ends if this process is killed.
        let arguments = ["secret-service", vault.directory, "--private-bus"]
        let (program, argv) =
            FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
            ? ("/usr/bin/setpriv", ["--pdeathsig", "TERM", "--", executable] + arguments) : (executable, arguments)
        do {
            service = try ChildProcess.spawn(
                program, argv, environment: serviceEnvironment, stdout: .descriptor(output[1]),
                stderr: .descriptor(log), newSession: true)
        } catch {
            close(output[0])
            close(output[1])
            throw CLIError("cannot start the keyring's Secret Service: \(error)")
        }
        close(output[1])
        let line = FirstLine(output[0]).read(within: Self.startDeadline)
        let prefix = "DBUS_SESSION_BUS_ADDRESS="
        guard let line, line.hasPrefix(prefix) else { throw failure("it printed no bus address") }
        busAddress = String(line.dropFirst(prefix.count))
        let client = ControlClient(vault: vault)
        let deadline = Date().addingTimeInterval(Self.startDeadline)
        // The control socket answers once the bus name is owned (the daemon serves the bus first).
        while (try? client.call(StatusCall())) == nil {
            var status: Int32 = 0
            if waitpid(service, &status, WNOHANG) == service {
                service = 0
                throw failure("it exited")
            }
            guard Date() < deadline else { throw failure("it did not answer within \(Int(Self.startDeadline)) s") }
            usleep(20_000)
        }
        do { _ = try client.call(PasscodeSet(passcode: Data(passcode.utf8))) } catch {
            throw CLIError("cannot set the keyring's passcode: \(error.message)")
        }
    }

    private func failure(_ why: String) -> CLIError {
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return CLIError("the keyring's Secret Service did not start: \(why)\n\(log.suffix(4096))")
    }

    /// Ends the service (SIGTERM, then SIGKILL after ``stopDeadline``) and removes the directory.
    func stop() {
        if service > 0 {
            kill(service, SIGTERM)
            let exit = Exit(service)
            if exit.status(within: Self.stopDeadline) == nil {
                kill(service, SIGKILL)
                _ = exit.status(within: Self.stopDeadline)
            }
            service = 0
        }
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// The first line a child writes to a pipe, read with a deadline; the pipe is closed after.
private struct FirstLine {
    let fd: Int32
    init(_ fd: Int32) { self.fd = fd }

    func read(within seconds: TimeInterval) -> String? {
        defer { close(fd) }
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        while bytes.count < 4096 {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            guard poll(&poller, 1, left) > 0 else { return nil }
            var byte: UInt8 = 0
            let n = Foundation.read(fd, &byte, 1)
            if n < 0 && errno == EINTR { continue }
            guard n == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }
}
