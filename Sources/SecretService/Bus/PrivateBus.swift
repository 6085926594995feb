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
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        unlink(socketPath)
        guard let executable = ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw BusError.failed("--private-bus needs dbus-daemon (apt install dbus-daemon)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--session", "--nofork", "--print-address", "--address=unix:path=" + socketPath]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { throw BusError.failed("cannot start dbus-daemon: \(error)") }
        self.process = process
        // The first line is the address, once the bus listens; bounded by a deadline.
        let printed = Self.firstLine(of: output.fileHandleForReading, within: Self.startDeadline)
        guard let printed, !printed.isEmpty else {
            Self.end(process)
            throw BusError.failed("dbus-daemon did not print its address within \(Int(Self.startDeadline)) s")
        }
        address = printed
    }

    /// Stops the bus (SIGTERM, then SIGKILL after a second) and removes its socket.
    public func stop() {
        Self.end(process)
        unlink(socketPath)
    }

    private static func end(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(1)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
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
