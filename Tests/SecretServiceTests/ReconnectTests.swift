import Foundation
import KeychainFSEngine
import KeychainFSSecretService
import Testing
import KeychainFSTestSupport

/// The session bus going away under a running mount: the mount goes on serving files, the daemon's log
/// says what happened, and the service comes back on the same address (a private bus is started again).
@Suite struct ReconnectTests {
    static func log(_ m: MountedVault) -> String {
        (try? String(contentsOfFile: Vault(directory: m.vault).logPath, encoding: .utf8)) ?? ""
    }

    static func lookup(_ address: String) -> CommandResult {
        Command.run(
            "/usr/bin/secret-tool", ["lookup", "service", "again", "username", "alice"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": address], timeout: 10)
    }

    @Test(.timeLimit(.minutes(2))) func aKilledPrivateBusIsStartedAgainAndTheMountNeverStops() throws {
        let m = try MountedVault(
            mountArguments: ["--secret-service", "--private-bus"], mountEnvironment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        let socket = PrivateBus.socketPath(for: Vault(directory: m.vault))
        let address = "unix:path=" + socket
        try expectSuccess(
            Command.run(
                "/usr/bin/secret-tool", ["store", "--label=a", "service", "again", "username", "alice"],
                stdin: "reconnected-secret", environment: ["DBUS_SESSION_BUS_ADDRESS": address]))
        let first = try #require(BusOwnershipTests.daemons(listeningOn: socket).first)
        kill(first, SIGKILL)

        #expect(MountFiles.text(m.path("genp/again/alice/value")) == "reconnected-secret", "the mount serves on")
        #expect(m.wait(10) { Self.log(m).contains("the bus connection ended") }, "\(Self.log(m))")
        #expect(Self.log(m).contains("the mount and the control socket go on; reconnecting to"))
        #expect(m.wait(20) { Self.lookup(address).stdout == "reconnected-secret" }, "\(Self.log(m))")
        #expect(Self.log(m).contains("serving org.freedesktop.secrets again on \(address)"))
        let second = BusOwnershipTests.daemons(listeningOn: socket)
        #expect(second.count == 1 && second != [first], "one new bus: \(second)")

        m.unmount()
        #expect(m.wait(5) { BusOwnershipTests.daemons(listeningOn: socket).isEmpty }, "nothing left running")
    }

    @Test(.timeLimit(.minutes(2))) func theSessionBusComingBackAtItsAddressIsServedAgain() throws {
        let root = TestDirectory.root + "/kcfs-rc-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        // No services directory: a bus of the standard configuration would start gnome-keyring for the
        // first lookup after it came back, before the service reconnected.
        let listen = "unix:path=" + root + "/session.bus"
        let bus = try SessionBus(configuredIn: root, listen: listen)
        let m = try MountedVault(mountArguments: ["--secret-service"], mountEnvironment: bus.environment)
        try expectSuccess(
            Command.run(
                "/usr/bin/secret-tool", ["store", "--label=a", "service", "again", "username", "alice"],
                stdin: "reconnected-secret", environment: bus.environment))
        bus.stop()
        #expect(m.wait(10) { Self.log(m).contains("the bus connection ended") }, "\(Self.log(m))")
        #expect(MountFiles.text(m.path("genp/again/alice/value")) == "reconnected-secret", "the mount serves on")
        let back = try SessionBus(configuredIn: root, listen: listen)
        #expect(back.address.hasPrefix(listen))
        #expect(m.wait(30) { Self.lookup(back.address).stdout == "reconnected-secret" }, "\(Self.log(m))")
        m.unmount()
    }
}
