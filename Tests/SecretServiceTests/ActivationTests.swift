import Foundation
import Testing
import KeychainFSTestSupport

/// D-Bus activation (mount-helpers/keychainfs.secrets.service.in, installed by `make install` and the
/// package): a bus whose services directory holds the file starts `keychainfs secret-service` for the
/// vault the bus's environment names when a client first asks for org.freedesktop.secrets; it serves
/// without a mount, obeys the device lock, and stops with the bus.
@Suite struct ActivationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// A bus of the test's own (`dbus-daemon --config-file`) whose services directory holds the activation
    /// file as installed, its `@BINDIR@` the directory of the keychainfs under test.
    static func activatingBus(root: String, environment: [String: String]) throws -> SessionBus {
        let services = root + "/dbus-services"
        try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
        let template = try String(
            contentsOfFile: repository + "/mount-helpers/keychainfs.secrets.service.in", encoding: .utf8)
        let binDirectory = URL(fileURLWithPath: MountedVault.binary).deletingLastPathComponent().path
        try template.replacingOccurrences(of: "@BINDIR@", with: binDirectory).write(
            toFile: services + "/keychainfs.secrets.service", atomically: true, encoding: .utf8)
        return try SessionBus(
            configuredIn: root, listen: "unix:path=" + root + "/activation.bus", services: services,
            environment: environment)
    }

    /// The pid that owns `name` on `bus`, as the bus says.
    static func owner(of name: String, on bus: SessionBus) -> Int32? {
        let reply = Command.run(
            "/usr/bin/dbus-send",
            [
                "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus.GetConnectionUnixProcessID", "string:" + name,
            ], environment: bus.environment, timeout: 10)
        return reply.stdout.split(separator: "\n").last?.split(separator: " ").last.flatMap { Int32($0) }
    }

    /// Whether `pid` is gone (or a zombie nobody reaped yet).
    static func ended(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
    }

    @Test(.timeLimit(.minutes(2))) func theBusStartsTheVaultsServiceOnDemandAndItStopsWithTheBus() throws {
        let m = try MountedVault()
        try expectSuccess(
            m.cli(["add-generic-password", "-s", "activated", "-a", "alice", "-w", "activated-secret", m.vault]))
        m.unmount()
        let bus = try Self.activatingBus(root: m.root, environment: ["KEYCHAIN_VAULT": m.vault])
        #expect(Self.owner(of: "org.freedesktop.secrets", on: bus) == nil, "nothing serves before a client asks")

        let lookup = Command.run(
            "/usr/bin/secret-tool", ["lookup", "service", "activated", "username", "alice"],
            environment: bus.environment, timeout: 30)
        #expect(lookup.stdout == "activated-secret", "\(lookup)")
        let pid = try #require(Self.owner(of: "org.freedesktop.secrets", on: bus))
        let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
        #expect(command.split(separator: "\0") == [Substring(MountedVault.binary), "secret-service"], "\(command)")
        #expect(!MountedVault.mountTable().contains(m.vault), "no mount: the bus only")

        // The device's lock, through the control socket of the same daemon.
        try expectSuccess(
            m.cli(["device", "passcode", "set", "--vault", m.vault, "--passcode-stdin"], stdin: "1234\n"))
        try expectSuccess(m.cli(["device", "lock", "--vault", m.vault]))
        let locked = Command.run(
            "/usr/bin/secret-tool", ["lookup", "service", "activated", "username", "alice"],
            environment: bus.environment, timeout: 30)
        #expect(!locked.succeeded && locked.stdout.isEmpty, "\(locked)")

        bus.stop()
        #expect(m.wait(10) { Self.ended(pid) }, "the activated daemon stops with its bus")
    }

    @Test(.timeLimit(.minutes(3))) func withoutAVaultTheActivationFailsAndSaysWhy() throws {
        let root = TestDirectory.root + "/kcfs-act-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let bus = try Self.activatingBus(root: root, environment: ["KEYCHAIN_VAULT": root + "/no-vault"])
        let lookup = Command.run(
            "/usr/bin/secret-tool", ["lookup", "service", "x", "username", "y"], environment: bus.environment,
            timeout: 30)
        #expect(!lookup.succeeded && lookup.stdout.isEmpty, "\(lookup)")
        #expect(Self.owner(of: "org.freedesktop.secrets", on: bus) == nil)
        let direct = Command.run(MountedVault.binary, ["secret-service", root + "/no-vault"], timeout: 10)
        #expect(!direct.succeeded && direct.stderr.contains("keychainfs init"), "\(direct)")
    }
}
