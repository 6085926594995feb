import Foundation
import KeychainFSTestSupport
import Testing

/// `keychainfs ci-keyring -- COMMAND`: COMMAND gets an unlocked Secret Service of its own on a private bus,
/// as Debian's clients use it; the device's lock works from inside; its status is COMMAND's; nothing of the
/// keyring is left running or on disk, whatever way COMMAND ends.
@Suite(.timeLimit(.minutes(3))) struct CIKeyringTests {
    static let keyringClient = ServedVault.clients + "/keyring_client.py"

    /// Runs `script` (sh) under ci-keyring with a temporary TMPDIR, HOME and XDG_DATA_HOME; returns the run
    /// and that directory.
    func ciKeyring(_ script: String, _ arguments: [String] = []) throws -> (CommandResult, root: String) {
        let root = TestDirectory.root + "/ci-keyring-\(UUID().uuidString.prefix(8))"
        for folder in ["tmp", "home", "data"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        let run = Command.run(
            MountedVault.binary, ["ci-keyring", "--", "/bin/sh", "-c", script, "sh"] + arguments,
            environment: [
                "TMPDIR": root + "/tmp", "HOME": root + "/home", "XDG_DATA_HOME": root + "/data",
                "DBUS_SESSION_BUS_ADDRESS": "", "KEYCHAIN_VAULT": "", "K": MountedVault.binary,
                "PYTHON": BusAccessTests.python, "KEYRING_CLIENT": Self.keyringClient,
            ], timeout: 120)
        return (run, root)
    }

    /// Nothing of the run is left: no directory under its TMPDIR, no process naming it, no default vault.
    func expectNothingLeft(_ root: String) {
        #expect((try? FileManager.default.contentsOfDirectory(atPath: root + "/tmp")) == [], "the keyring is removed")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: root + "/data")) == [], "no default vault made")
        let left = Command.run("/usr/bin/pgrep", ["-f", root + "/tmp"])
        #expect(left.stdout.isEmpty, "no service or bus is left running: \(left.stdout)")
    }

    @Test func debiansClientsStoreAndReadAndTheLockWorksFromInside() throws {
        let (run, root) = try ciKeyring(
            """
            set -e
            printf 'token-1' | secret-tool store --label='CI token' service ci-svc username bot
            echo "lookup=$(secret-tool lookup service ci-svc username bot)"
            "$PYTHON" "$KEYRING_CLIENT" set py-svc py-user py-secret
            echo "keyring=$("$PYTHON" "$KEYRING_CLIENT" get py-svc py-user)"
            "$K" device lock >/dev/null
            if secret-tool lookup service ci-svc username bot; then echo "read while locked"; exit 1; fi
            echo "keyring-locked=$("$PYTHON" "$KEYRING_CLIENT" get py-svc py-user || true)"
            printf '%s\\n' "$KEYCHAIN_CI_PASSCODE" | "$K" device unlock --passcode-stdin >/dev/null
            echo "unlocked=$(secret-tool lookup service ci-svc username bot)"
            echo "vault=$KEYCHAIN_VAULT"
            exit 7
            """)
        #expect(run.status == 7, "COMMAND's status: \(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("lookup=token-1"), "\(run.stdout)")
        #expect(lines.contains("keyring=py-secret"), "\(run.stdout)")
        #expect(lines.contains("keyring-locked=LOCKED"), "\(run.stdout)")
        #expect(lines.contains("unlocked=token-1"), "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("vault=" + root + "/tmp/keychainfs-ci.") }, "\(run.stdout)")
        expectNothingLeft(root)
    }

    @Test func aCommandEndedBySignalGives128PlusItsNumberAndOneNotFound127() throws {
        let (killed, root) = try ciKeyring("kill -TERM $$")
        #expect(killed.status == 128 + SIGTERM, "\(killed.stderr)")
        expectNothingLeft(root)
        let missing = Command.run(MountedVault.binary, ["ci-keyring", "--", "no-such-command-\(UUID().uuidString)"])
        #expect(missing.status == 127 && missing.stderr.contains("command not found"), "\(missing.stderr)")
        let none = Command.run(MountedVault.binary, ["ci-keyring"])
        #expect(none.status == 64, "\(none.stderr)")
    }

    /// A CI runner cancelling the job sends SIGTERM to keychainfs: COMMAND gets it, the keyring goes.
    @Test func aSIGTERMReachesTheCommandAndTheKeyringGoes() throws {
        let root = TestDirectory.root + "/ci-keyring-term-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root + "/tmp", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/data", withIntermediateDirectories: true)
        let started = try #require(
            Command.start(
                MountedVault.binary, ["ci-keyring", "--", "/bin/sh", "-c", "echo ready; exec sleep 60"],
                environment: ["TMPDIR": root + "/tmp", "XDG_DATA_HOME": root + "/data", "DBUS_SESSION_BUS_ADDRESS": ""])
        )
        let output = FileHandle(fileDescriptor: started.stdout, closeOnDealloc: true)
        #expect(output.readLine(within: 60) == "ready")
        kill(started.pid, SIGTERM)
        var raw: Int32 = 0
        let deadline = Date().addingTimeInterval(120)  // a hang guard: it ends in about a second
        while waitpid(started.pid, &raw, WNOHANG) == 0 && Date() < deadline { usleep(20_000) }
        if Date() >= deadline { kill(started.pid, SIGKILL) }
        #expect(
            raw & 0x7f == 0 && (raw >> 8) & 0xff == 128 + SIGTERM, "the status of the command SIGTERM ended: \(raw)")
        expectNothingLeft(root)
    }
}
