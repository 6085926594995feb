import KeychainFSChildProcesses
import Foundation
import KeychainFSEngine
import KeychainFSModel

/// A session bus of the daemon's own (`--private-bus`), for machines without one (servers, containers,
/// CI): `dbus-daemon --session --nofork --print-address` on a socket whose path follows from the vault,
/// so the command that started the daemon can print it too; stopped with the daemon.
package final class PrivateBus: Sendable {
    /// The bus's address, to export as DBUS_SESSION_BUS_ADDRESS.
    package let address: String
    private let pid: pid_t
    private let exit: Exit
    private let socketPath: String
    /// The bus's own configuration (beside its socket): it activates no service, and once this vault owns
    /// org.freedesktop.secrets, no other connection may ask for the name (``lockOwnership(_:)``).
    private let configPath: String

    static let setpriv = "/usr/bin/setpriv"

    /// How long dbus-daemon may take to print its address.
    static let startDeadline: TimeInterval = 10

    /// The socket of `vault`'s private bus: in the vault directory, or under /tmp when that path is too
    /// long for a Unix socket (as the control socket does).
    package static func socketPath(for vault: Vault) -> String {
        let inVault = vault.directory + "/secret-service.bus"
        if inVault.utf8.count < 100 { return inVault }
        return "/tmp/keychainfs-\(getuid())/\(String(StableHash.fnv1a64(vault.directory.utf8), radix: 16)).bus"
    }

    package static func address(for vault: Vault) -> String { "unix:path=" + socketPath(for: vault) }

    package init(vault: Vault) throws(BusError) {
        socketPath = Self.socketPath(for: vault)
        let directory = (socketPath as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        unlink(socketPath)
        guard
            let executable = ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            throw BusError.failed("--private-bus needs dbus-daemon (apt install dbus-daemon)")
        }
        configPath = socketPath + ".conf"
        try Self.writeConfiguration(Self.configuration(socket: socketPath, ownable: true), to: configPath)
        let busArguments = ["--config-file=" + configPath, "--nofork", "--print-address"]
        // Through setpriv (util-linux) when there is one: the bus is killed if the daemon dies without
        // stopping it (SIGKILL, a crash), so no bus outlives its vault's daemon.
        let (program, arguments) =
            FileManager.default.isExecutableFile(atPath: Self.setpriv)
            ? (Self.setpriv, ["--pdeathsig", "KILL", "--", executable] + busArguments) : (executable, busArguments)
        var output: [Int32] = [-1, -1]
        guard pipe(&output) == 0 else { throw BusError.failed("cannot make a pipe for dbus-daemon") }
        for fd in output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let (readEnd, writeEnd) = (output[0], output[1])
        defer { close(readEnd) }
        // Started from a thread that lives as long as the bus: the parent-death signal follows the thread
        // that spawned the child, and the calling thread may end before the bus does. ChildProcess: no
        // descriptor of the daemon's and no signal blocked in the bus (with SIGCHLD blocked, as the daemon's
        // threads have it, a dbus-daemon never sees the services it starts exit).
        let launch = Launch()
        let launched = DispatchSemaphore(value: 0)
        let keeper = self.keeper
        let thread = Thread {
            do throws(ChildProcess.SpawnError) {
                launch.pid = try ChildProcess.spawn(program, arguments, stdout: .descriptor(writeEnd))
            } catch {
                launch.error = error
            }
            launched.signal()
            keeper.wait()
        }
        thread.name = "private-bus"
        thread.start()
        launched.wait()
        close(writeEnd)
        guard let pid = launch.pid else {
            keeper.signal()
            throw BusError.failed("cannot start dbus-daemon: \(launch.error.map { "\($0)" } ?? "?")")
        }
        self.pid = pid
        exit = Exit(pid)
        // The first line is the address, once the bus listens; bounded by a deadline.
        let printed = Self.firstLine(of: readEnd, within: Self.startDeadline)
        guard let printed, !printed.isEmpty else {
            Self.end(pid, exit)
            keeper.signal()
            throw BusError.failed("dbus-daemon did not print its address within \(Int(Self.startDeadline)) s")
        }
        address = printed
    }

    /// The configuration of a private bus: a session bus listening on `socket` that activates nothing (no
    /// service directory: a call to a name nobody owns never starts gnome-keyring or another provider on
    /// it), where every connection may talk to every other and, unless `ownable` is false, own names;
    /// with `ownable` false, org.freedesktop.secrets can no longer be asked for by anyone.
    static func configuration(socket: String, ownable: Bool) -> String {
        let escaped = socket.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        return """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(escaped)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
            \(ownable ? "" : "    <deny own=\"\(SecretService.busName)\"/>\n")  </policy>
            </busconfig>

            """
    }

    private static func writeConfiguration(_ text: String, to path: String) throws(BusError) {
        do throws(KeychainError) {
            try FileIO.writeAtomically(Data(text.utf8), to: path, mode: 0o600)
        } catch {
            throw BusError.failed("cannot write the private bus's configuration \(path): \(error.message)")
        }
    }

    /// Called once this vault owns org.freedesktop.secrets on the bus: from now on no other connection may
    /// ask for the name (the bus reads its configuration again; the owner keeps the name).
    package func lockOwnership(_ connection: BusConnection) throws(BusError) {
        try Self.writeConfiguration(Self.configuration(socket: socketPath, ownable: false), to: configPath)
        try connection.reloadBusConfiguration()
    }

    /// Whether the bus process still runs (it may have been killed under the daemon).
    package var isRunning: Bool { exit.status(within: 0) == nil }

    /// Stops the bus (SIGKILL: it keeps nothing) and removes its socket.
    package func stop() {
        Self.end(pid, exit)
        unlink(socketPath)
        unlink(configPath)
        keeper.signal()
    }

    private let keeper = DispatchSemaphore(value: 0)

    /// The pid the launching thread got, or why it got none.
    private final class Launch: @unchecked Sendable {
        var pid: pid_t?
        var error: ChildProcess.SpawnError?
    }

    private static func end(_ pid: pid_t, _ exit: Exit) {
        guard exit.status(within: 0) == nil else { return }
        kill(pid, SIGKILL)
        _ = exit.status(within: 5)
    }

    private static func firstLine(of fd: Int32, within seconds: TimeInterval) -> String? {
        var line = Data()
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, line.count < 4096 {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) >= 0 else { return nil }
            guard pfd.revents != 0 else { continue }
            var byte: UInt8 = 0
            guard read(fd, &byte, 1) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return nil
    }
}
