import Foundation
import KeychainFSTestSupport

/// A D-Bus session bus of the test's own: `dbus-daemon --session --nofork --print-address`, its address read
/// within a deadline, killed (and waited for) when the test ends.
final class SessionBus {
    let address: String
    let pid: Int32

    /// `arguments`: what kind of bus (`--session`, or `--config-file=…` for one with an activation
    /// directory) and where (`--address=…`); `environment`: what the bus gives the services it starts.
    init(arguments: [String] = ["--session"], environment: [String: String] = [:]) throws {
        // posix_spawn with no signal blocked (Command.start): a dbus-daemon started by Foundation's Process
        // inherited a blocked SIGCHLD and never saw a service it activated exit.
        guard
            let started = Command.start(
                "/usr/bin/dbus-daemon", arguments + ["--nofork", "--print-address"], environment: environment)
        else { throw BusStartFailed() }
        pid = started.pid
        address = FileHandle(fileDescriptor: started.stdout, closeOnDealloc: true).readLine(within: 10) ?? ""
        guard address.hasPrefix("unix:") else {
            stop()
            throw BusStartFailed()
        }
    }

    struct BusStartFailed: Error {}

    /// A session bus from a configuration file of its own (in `root`): listening at `listen`, starting the
    /// services of `services` only (none: no activation at all, not even the desktop's gnome-keyring).
    convenience init(
        configuredIn root: String, listen: String, services: String? = nil, environment: [String: String] = [:]
    ) throws {
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>\(listen)</listen>
              \(services.map { "<servicedir>\($0)</servicedir>" } ?? "")
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        let file = root + "/bus-" + UUID().uuidString.prefix(8) + ".conf"
        try configuration.write(toFile: file, atomically: true, encoding: .utf8)
        try self.init(arguments: ["--config-file=" + file], environment: environment)
    }

    deinit { stop() }

    /// Kills the bus (SIGKILL, as a crash would) and waits for it; once.
    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    private var stopped = false

    /// The environment of a client of this bus.
    var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }
}

/// A vault mounted with `--secret-service` on a bus of the test's own, and the Debian clients pointed at it.
final class ServedVault {
    let bus: SessionBus
    let vault: MountedVault

    init(mountArguments: [String] = [], mountEnvironment: [String: String] = [:]) throws {
        bus = try SessionBus()
        vault = try MountedVault(
            mountArguments: ["--secret-service"] + mountArguments,
            mountEnvironment: bus.environment.merging(mountEnvironment) { $1 })
    }

    static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Clients").path

    func secretTool(_ arguments: [String], stdin: String? = nil) -> CommandResult {
        Command.run("/usr/bin/secret-tool", arguments, stdin: stdin, environment: bus.environment, timeout: 30)
    }

    /// `Clients/NAME.py ARGS` with Debian's python3 (where python3-secretstorage and python3-keyring are).
    func python(_ script: String, _ arguments: [String]) -> CommandResult {
        Command.run(
            "/usr/bin/python3", [Self.clients + "/" + script + ".py"] + arguments, environment: bus.environment,
            timeout: 60)
    }

    func docker(_ command: String, stdin: String) -> CommandResult {
        Command.run(
            "/usr/bin/docker-credential-secretservice", [command], stdin: stdin, environment: bus.environment,
            timeout: 30)
    }
}

/// Files of the mount, read and written as any program would.
enum MountFiles {
    static func text(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        return (try? handle.readToEnd()).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Makes `genp/SERVICE/ACCOUNT` and writes its value; false on any failure.
    static func makeItem(_ served: ServedVault, service: String, account: String, value: String) -> Bool {
        let item = served.vault.path("genp/\(service)/\(account)")
        _ = mkdir(served.vault.path("genp/\(service)"), 0o700)
        guard mkdir(item, 0o700) == 0, let handle = FileHandle(forWritingAtPath: item + "/value") else { return false }
        defer { try? handle.close() }
        return (try? handle.write(contentsOf: Data(value.utf8))) != nil
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}

extension FileHandle {
    /// The first line written (without its newline), or nil if none comes within `seconds`.
    func readLine(within seconds: TimeInterval) -> String? {
        var line = Data()
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var pfd = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) >= 0 else { return nil }
            if pfd.revents == 0 { continue }
            var byte: UInt8 = 0
            guard Glibc.read(fileDescriptor, &byte, 1) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return nil
    }
}
