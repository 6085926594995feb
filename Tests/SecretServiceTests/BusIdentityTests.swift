import Foundation
import KeychainFSEngine
import KeychainFSSecretService
import Testing
import KeychainFSTestSupport

/// Attacks on the bus (docs/threat-model.md): an identity lent through an exec on an inherited connection
/// (attack 1), and org.freedesktop.secrets taken over by a process the rules refuse (attack 2). Each with
/// the test switch that shows the test can fail.
@Suite struct BusIdentityTests {
    /// A strict vault on a bus of its own where only a copy of `sleep` (which sends nothing) and Debian's
    /// python3 are allowed; the python client stores `borrowed-secret`.
    func served(switchedOff: String? = nil, mountArguments: [String] = []) throws -> (ServedVault, allowed: String) {
        let s = try ServedVault(
            mountArguments: ["--strict"] + mountArguments,
            mountEnvironment: switchedOff.map { ["KEYCHAINFS_TEST_DISABLE_GUARDS": $0] } ?? [:])
        let allowed = s.vault.root + "/allowed-sleep"
        try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: allowed)
        for exe in [allowed, BusAccessTests.python] {
            try expectSuccess(s.vault.cli(["access", "grant", "default", "--exe", exe, "--vault", s.vault.vault]))
        }
        try expectSuccess(s.python("keyring_client", ["set", "lent", "alice", "borrowed-secret"]))
        return (s, allowed)
    }

    /// The attacker: a copy of python (no rule names it) running borrowing_client.py.
    func attacker(_ s: ServedVault, _ arguments: [String]) -> CommandResult {
        let copy = s.vault.root + "/unmatched-python"
        if !FileManager.default.fileExists(atPath: copy) {
            try? FileManager.default.copyItem(atPath: BusAccessTests.python, toPath: copy)
        }
        return Command.run(
            copy, [ServedVault.clients + "/borrowing_client.py"] + arguments, environment: s.bus.environment,
            timeout: 60)
    }

    @Test(.timeLimit(.minutes(3))) func anExecAfterConnectingLendsNoIdentity() throws {
        let (s, allowed) = try served()
        for _ in 0..<3 {
            let out = attacker(s, ["exec-then-read", allowed, "lent", "alice"])
            #expect(!out.stdout.contains("borrowed-secret"), "the child read through a connection lent by an exec")
            #expect(out.stdout.contains("AccessDenied"), "\(out)")
        }
        #expect(s.python("keyring_client", ["get", "lent", "alice"]).stdout == "borrowed-secret", "the owner reads")
    }

    @Test(.timeLimit(.minutes(3))) func withConnectionBindingSwitchedOffTheExecLendsTheIdentity() throws {
        let (s, allowed) = try served(switchedOff: AccessPolicy.connectionBindingSwitch)
        let outs = (0..<3).map { _ in attacker(s, ["exec-then-read", allowed, "lent", "alice"]) }
        #expect(outs.contains { $0.stdout.contains("borrowed-secret") }, "\(outs)")
    }

    @Test(.timeLimit(.minutes(3))) func aProcessOnTheBusCannotTakeTheNameOver() throws {
        let (s, _) = try served()
        let taken = attacker(s, ["take-name"])
        #expect(taken.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "3", "\(taken)")
        try expectSuccess(s.python("keyring_client", ["set", "after", "bob", "still-the-vault"]))
        #expect(
            s.python("keyring_client", ["get", "after", "bob"]).stdout == "still-the-vault", "the vault still serves")
    }

    /// With the name guard off, the impostor takes the name (so the test above can fail); when it leaves,
    /// the vault, queued for the name, serves it again.
    @Test(.timeLimit(.minutes(3))) func withTheNameGuardSwitchedOffTheNameIsTakenAndComesBack() throws {
        let (s, _) = try served(switchedOff: SecretService.nameGuardSwitch)
        let taken = attacker(s, ["take-name", "1"])
        #expect(taken.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(taken)")
        #expect(
            s.vault.wait(15) { s.python("keyring_client", ["get", "lent", "alice"]).stdout == "borrowed-secret" },
            "the vault has the name back once the impostor left")
    }

    /// On a private bus nobody else may even queue for the name, and nothing is activated there.
    @Test(.timeLimit(.minutes(3))) func onAPrivateBusNoOtherConnectionMayAskForTheName() throws {
        let m = try MountedVault(
            mountArguments: ["--secret-service", "--private-bus"], mountEnvironment: ["DBUS_SESSION_BUS_ADDRESS": ""])
        let environment = ["DBUS_SESSION_BUS_ADDRESS": PrivateBus.address(for: Vault(directory: m.vault))]
        let taken = Command.run(
            "/usr/bin/python3", [ServedVault.clients + "/borrowing_client.py", "take-name"], environment: environment,
            timeout: 60)
        #expect(taken.stdout.contains("AccessDenied"), "\(taken)")
        let activated = Command.run(
            "/usr/bin/dbus-send",
            [
                "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus.ListActivatableNames",
            ], environment: environment, timeout: 30)
        #expect(activated.succeeded && !activated.stdout.contains("secrets"), "\(activated)")
    }
}
