import Foundation
import KeychainFSEngine
import KeychainFSSecretService
import Testing
import KeychainFSTestSupport

/// `keychainfs secret-service VAULT` (no mount) obeys what a mount's service obeys: under --strict a process
/// no rule of access.toml matches is AccessDenied and audited, a matched one is served; SIGTERM stops it and
/// its private bus. With the control-access guard switched off (`guardOff`) the same process is served: the
/// refusal is the rules'.
@Suite struct BusOnlyDaemonTests {
    @Test(.timeLimit(.minutes(2)), arguments: [false, true])
    func theDaemonWithoutAMountRefusesAnUnmatchedProcessUnderStrict(guardOff: Bool) throws {
        let m = try MountedVault()
        try expectSuccess(
            m.cli(["add-generic-password", "-s", "only-bus", "-a", "alice", "-w", "bus-only-secret", m.vault]))
        m.unmount()
        try expectSuccess(m.cli(["access", "grant", "default", "--exe", BusAccessTests.python, "--vault", m.vault]))
        let log = m.root + "/audit.jsonl"
        let daemon = try #require(
            Command.start(
                MountedVault.binary, ["secret-service", m.vault, "--strict", "--private-bus", "--audit-log", log],
                environment: ["DBUS_SESSION_BUS_ADDRESS": ""].merging(
                    guardOff ? ["KEYCHAINFS_TEST_DISABLE_GUARDS": "control-access"] : [:]
                ) { $1 }))
        defer {
            kill(daemon.pid, SIGKILL)
            var status: Int32 = 0
            waitpid(daemon.pid, &status, 0)
        }
        let firstLine = FileHandle(fileDescriptor: daemon.stdout, closeOnDealloc: true).readLine(within: 10)
        let prefix = "DBUS_SESSION_BUS_ADDRESS="
        #expect(firstLine?.hasPrefix(prefix) == true, "\(String(describing: firstLine))")
        let environment = [prefix.dropLast().description: String((firstLine ?? "").dropFirst(prefix.count))]
        let socket = PrivateBus.socketPath(for: Vault(directory: m.vault))

        let keyring = { () -> CommandResult in
            Command.run(
                "/usr/bin/python3", [ServedVault.clients + "/keyring_client.py", "get", "only-bus", "alice"],
                environment: environment, timeout: 30)
        }
        #expect(m.wait(10) { keyring().stdout == "bus-only-secret" }, "a process a rule matches is served")
        let lookup = Command.run(
            "/usr/bin/secret-tool", ["lookup", "service", "only-bus", "username", "alice"],
            environment: environment, timeout: 30)
        if guardOff {
            #expect(lookup.stdout == "bus-only-secret", "\(lookup)")
            return
        }
        #expect(!lookup.succeeded && lookup.stdout.isEmpty, "\(lookup)")
        let audit = BusAccessTests().auditLines(log)
        #expect(
            audit.contains {
                ($0["operation"] as? String ?? "").hasPrefix("secret-service.") && $0["status"] as? Int == -34018
                    && ($0["executable"] as? String ?? "").hasSuffix("secret-tool")
            }, "\(audit)")
        #expect(!((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("bus-only-secret"))

        let status = m.cli(["status", "--vault", m.vault])
        #expect(status.stdout.contains("mount: none (the Secret Service only)\n"), "\(status)")

        kill(daemon.pid, SIGTERM)
        #expect(m.wait(10) { ActivationTests.ended(daemon.pid) }, "SIGTERM stops it")
        #expect(m.wait(5) { BusOwnershipTests.daemons(listeningOn: socket).isEmpty }, "and its private bus")
    }

    /// A vault a mount serves already: the advice says where it is mounted and what a mount with
    /// --secret-service does, not to mount it.
    @Test func aSecondServiceOnAMountedVaultSaysWhereItIsMounted() throws {
        let m = try MountedVault()
        let second = Command.run(
            MountedVault.binary, ["secret-service", m.vault, "--private-bus"],
            environment: ["DBUS_SESSION_BUS_ADDRESS": ""],
            timeout: 30)
        #expect(
            !second.succeeded && second.stderr.contains("already mounted at \(m.mount)")
                && second.stderr.contains("--secret-service"), "\(second)")
    }
}
