import Foundation
import KeychainEngine
import KeychainModel

/// A session bus of the daemon's own (`--private-bus`), for machines without one (servers, containers,
/// CI): `dbus-daemon --session --nofork --print-address` on a socket whose path follows from the vault,
/// so the command that started the daemon can print it too; stopped with the daemon.
public final class PrivateBus: Sendable {
    /// The bus's address, to export as DBUS_SESSION_BUS_ADDRESS.
    public let address: String
    private let process: Process
    private let socketPath: String

    static let setpriv = "/usr/bin/setpriv"

    /// How long dbus-daemon may take to print its address.
    static let startDeadline: TimeInterval = 10

    /// The socket of `vault`'s private bus: in the vault directory, or under /tmp when that path is too
    /// long for a Unix socket (as the control socket does).
    public static func socketPath(for vault: Vault) -> String {
        let inVault = vault.directory + "/secret-service.bus"
        if inVault.utf8.count < 100 { return inVault }
        return "/tmp/keychainfs-\(getuid())/\(String(StableHash.fnv1a64(vault.directory.utf8), radix: 16)).bus"
    }

    public static func address(for vault: Vault) -> String { "unix:path=" + socketPath(for: vault) }

    public init(vault: Vault) throws(BusError) {
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
        let process = Process()
        let busArguments = ["--session", "--nofork", "--print-address", "--address=unix:path=" + socketPath]
        // Through setpriv (util-linux) when there is one: the bus is killed if the daemon dies without
        // stopping it (SIGKILL, a crash), so no bus outlives its vault's daemon. SIGKILL, because the child
        // inherits the daemon's signal mask, in which SIGTERM is blocked (the daemon waits for it itself).
        if FileManager.default.isExecutableFile(atPath: Self.setpriv) {
            process.executableURL = URL(fileURLWithPath: Self.setpriv)
            process.arguments = ["--pdeathsig", "KILL", "--", executable] + busArguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = busArguments
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        // Started from a thread that lives as long as the bus: the parent-death signal follows the thread
        // that spawned the child, and the calling thread may end before the bus does.
        let launch = Launch(process)
        let launched = DispatchSemaphore(value: 0)
        let keeper = self.keeper
        let thread = Thread {
            do { try launch.process.run() } catch { launch.error = error }
            launched.signal()
            keeper.wait()
        }
        thread.name = "private-bus"
        thread.start()
        launched.wait()
        if let error = launch.error {
            keeper.signal()
            throw BusError.failed("cannot start dbus-daemon: \(error)")
        }
        self.process = process
        // The first line is the address, once the bus listens; bounded by a deadline.
        let printed = Self.firstLine(of: output.fileHandleForReading, within: Self.startDeadline)
        guard let printed, !printed.isEmpty else {
            Self.end(process)
            throw BusError.failed("dbus-daemon did not print its address within \(Int(Self.startDeadline)) s")
        }
        address = printed
    }

    /// Whether the bus process still runs (it may have been killed under the daemon).
    public var isRunning: Bool { process.isRunning }

    /// Stops the bus (SIGKILL: it keeps nothing, and SIGTERM is blocked in the mask it inherited) and removes its socket.
    public func stop() {
        Self.end(process)
        unlink(socketPath)
        keeper.signal()
    }

    private let keeper = DispatchSemaphore(value: 0)

    /// The process to start on the launching thread, and how starting it went.
    private final class Launch: @unchecked Sendable {
        let process: Process
        var error: (any Error)?
        init(_ process: Process) { self.process = process }
    }

    private static func end(_ process: Process) {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private static func firstLine(of handle: FileHandle, within seconds: TimeInterval) -> String? {
        let fd = handle.fileDescriptor
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
