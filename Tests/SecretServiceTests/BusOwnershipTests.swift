import Foundation
import Testing
import KeychainFSEngine
import KeychainFSSecretService
import KeychainFSTestSupport

/// Starting the service: --private-bus on a machine with no session bus (and nothing left running after
/// unmount); another owner of org.freedesktop.secrets is named, and --replace takes the name over.
@Suite struct BusOwnershipTests {
    /// The pids of dbus-daemons listening on `socket` (from their command lines).
    static func daemons(listeningOn socket: String) -> [Int32] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap(Int32.init) ?? []
        return pids.filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let line = String(decoding: data, as: UTF8.self)
            return line.hasPrefix("/usr/bin/dbus-daemon") && line.contains(socket)
        }
    }

    @Test func privateBusServesClientsAndStopsWithTheMount() throws {
        let m = try MountedVault(
            mountArguments: ["--secret-service", "--private-bus"], mountEnvironment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        let socket = PrivateBus.socketPath(for: Vault(directory: m.vault))
        let address = "unix:path=" + socket
        let daemons = Self.daemons(listeningOn: socket)
        #expect(daemons.count == 1, "one dbus-daemon of the mount's own")
        let environment = ["DBUS_SESSION_BUS_ADDRESS": address]
        try expectSuccess(
            Command.run(
                "/usr/bin/secret-tool", ["store", "--label=p", "service", "priv", "username", "bus"],
                stdin: "private-secret",
                environment: environment))
        #expect(
            Command.run(
                "/usr/bin/secret-tool", ["lookup", "service", "priv", "username", "bus"], environment: environment
            ).stdout == "private-secret")
        m.unmount()
        #expect(m.wait(5) { daemons.allSatisfy { kill($0, 0) != 0 } }, "the private bus stops on unmount")
        #expect(!FileManager.default.fileExists(atPath: socket), "its socket is removed")
    }

    /// A daemon that dies without stopping its bus (SIGKILL) takes the bus with it (setpriv's parent-death signal).
    @Test func privateBusEndsWithAKilledDaemon() throws {
        let m = try MountedVault(
            mountArguments: ["--secret-service", "--private-bus"], mountEnvironment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        let daemons = Self.daemons(listeningOn: PrivateBus.socketPath(for: Vault(directory: m.vault)))
        #expect(daemons.count == 1)
        let pid = try #require(m.daemonPID)
        kill(pid, SIGKILL)
        #expect(m.wait(10) { daemons.allSatisfy { kill($0, 0) != 0 } }, "no bus outlives its daemon")
    }

    @Test func theMountPrintsTheAddressToExport() throws {
        let root = TestDirectory.root + "/kcfs-ss-print-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try expectSuccess(
            Command.run(
                MountedVault.binary, ["init", root + "/vault", "--test-device"],
                environment: ["XDG_STATE_HOME": root + "/state"]))
        let mounted = Command.run(
            MountedVault.binary, ["mount", root + "/vault", root + "/mnt", "--secret-service", "--private-bus"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        defer { _ = Command.run(MountedVault.binary, ["unmount", root + "/mnt"], timeout: 15) }
        try expectSuccess(mounted)
        let socket = PrivateBus.socketPath(for: Vault(directory: root + "/vault"))
        #expect(mounted.stdout.contains("DBUS_SESSION_BUS_ADDRESS=unix:path=\(socket)\n"), "\(mounted)")
        try expectSuccess(Command.run(MountedVault.binary, ["unmount", root + "/mnt"], timeout: 15))
        #expect(Self.daemons(listeningOn: socket).isEmpty)
    }

    @Test func withoutASessionBusTheMountSaysWhatToDo() throws {
        let root = TestDirectory.root + "/kcfs-ss-nobus-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try expectSuccess(
            Command.run(
                MountedVault.binary, ["init", root + "/vault", "--test-device"],
                environment: ["XDG_STATE_HOME": root + "/state"]))
        let mounted = Command.run(
            MountedVault.binary, ["mount", root + "/vault", root + "/mnt", "--secret-service"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": "", "XDG_RUNTIME_DIR": root])
        defer { _ = Command.run(MountedVault.binary, ["unmount", root + "/mnt"], timeout: 15) }
        #expect(!mounted.succeeded && mounted.stderr.contains("--private-bus"), "\(mounted)")
        #expect(!MountedVault.mountTable().contains(" \(root)/mnt "), "nothing mounted")
    }

    /// Another owner is named; a keychainfs vault never lets `--replace` (or anyone) take the name over the
    /// bus: the second vault is told to stop the first's Secret Service, and serves once it has.
    @Test func anotherOwnerIsNamedAndAVaultGivesTheNameUpOnlyByStopping() throws {
        let first = try ServedVault()
        try expectSuccess(
            first.secretTool(["store", "--label=a", "service", "first", "username", "x"], stdin: "first-secret"))
        let second = try MountedVault(initArguments: ["--test-device"], mountEnvironment: first.bus.environment)
        defer { second.close() }
        second.unmount()
        let refused = second.remount(["--secret-service"], environment: first.bus.environment)
        #expect(!refused.succeeded, "\(refused)")
        let firstPID = try #require(first.vault.daemonPID)
        #expect(
            refused.stderr.contains("org.freedesktop.secrets is already owned")
                && refused.stderr.contains("pid \(firstPID)")
                && refused.stderr.contains("--replace"), "\(refused)")
        let replacing = second.remount(["--secret-service", "--replace"], environment: first.bus.environment)
        #expect(
            !replacing.succeeded && replacing.stderr.contains("does not allow replacement")
                && replacing.stderr.contains("keychainfs unmount"), "\(replacing)")
        #expect(first.secretTool(["lookup", "service", "first", "username", "x"]).stdout == "first-secret")

        first.vault.unmount()
        try expectSuccess(second.remount(["--secret-service"], environment: first.bus.environment))
        try expectSuccess(
            first.secretTool(["store", "--label=b", "service", "second", "username", "y"], stdin: "second-secret"))
        #expect(MountFiles.text(second.path("genp/second/y/value")) == "second-secret")
    }
}
