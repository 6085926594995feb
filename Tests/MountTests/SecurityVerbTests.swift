import Foundation
import Testing
import KeychainFSTestSupport

/// The macOS `security` verbs (docs/spec.md §5, docs/security-verbs.md): same flags, output shapes and exit codes.
@Suite struct SecurityVerbTests {
    func security(_ arguments: [String], vault: String) -> CommandResult {
        Command.run(
            MountedVault.binary, arguments, environment: ["KEYCHAIN_VAULT": vault, "KEYCHAIN_ACCESS_GROUPS": ""])
    }

    @Test func genericPasswordsInProcess() throws {
        let root = TestDirectory.root + "/kcfs-verbs-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let vault = root + "/vault"
        try expectSuccess(
            security(
                [
                    "add-generic-password", "-a", "alice", "-s", "com.example.api", "-w", "s3cret", "-l", "API", "-j",
                    "note",
                ], vault: vault))
        #expect(security(["find-generic-password", "-s", "com.example.api", "-w"], vault: vault).stdout == "s3cret\n")
        let shown = security(["find-generic-password", "-a", "alice", "-g"], vault: vault)
        #expect(
            shown.succeeded && shown.stdout.contains("class: \"genp\"")
                && shown.stdout.contains("\"acct\"<blob>=\"alice\""))
        #expect(shown.stdout.contains("0x00000007 <blob>=\"API\"") && shown.stdout.contains("\"icmt\"<blob>=\"note\""))
        #expect(shown.stderr.contains("password: \"s3cret\"") && !shown.stdout.contains("s3cret"))
        let duplicate = security(
            ["add-generic-password", "-a", "alice", "-s", "com.example.api", "-w", "other"], vault: vault)
        #expect(duplicate.status == 45 && duplicate.stderr.contains("already exists"))
        try expectSuccess(
            security(
                ["add-generic-password", "-U", "-a", "alice", "-s", "com.example.api", "-w", "rotated"], vault: vault))
        #expect(security(["find-generic-password", "-s", "com.example.api", "-w"], vault: vault).stdout == "rotated\n")
        let deleted = security(["delete-generic-password", "-s", "com.example.api"], vault: vault)
        #expect(deleted.succeeded && deleted.stdout.hasSuffix("password has been deleted.\n"))
        let missing = security(["find-generic-password", "-s", "com.example.api"], vault: vault)
        #expect(missing.status == 44 && missing.stderr.contains("could not be found"))
        #expect(security(["delete-generic-password", "-s", "com.example.api"], vault: vault).status == 44)
    }

    @Test func internetPasswordsThroughTheDaemonFollowTheLock() throws {
        let m = try MountedVault()
        try expectSuccess(
            security(
                [
                    "add-internet-password", "-a", "alice", "-s", "example.com", "-r", "htps", "-P", "8443", "-p",
                    "/login",
                    "-t", "form", "-w", "pw",
                ], vault: m.vault))
        let item = m.path("inet/example.com/alice;atyp=form;path=%2Flogin;port=8443;ptcl=htps")
        #expect(FS.text(item + "/value") == "pw", "the daemon served the add: the item is in the mount")
        let found = security(["find-internet-password", "-s", "example.com", "-P", "8443"], vault: m.vault)
        #expect(
            found.stdout.contains("\"ptcl\"<uint32>=\"htps\"") && found.stdout.contains("\"port\"<uint32>=0x000020FB"))
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        let locked = security(["find-internet-password", "-s", "example.com", "-w"], vault: m.vault)
        #expect(locked.status == 36 && locked.stdout.isEmpty, "errSecInteractionNotAllowed (-25308): exit 36")
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(
            security(["find-internet-password", "-a", "alice", "-r", "htps", "-w"], vault: m.vault).stdout == "pw\n")
        #expect(
            security(["find-internet-password", "-r", "https"], vault: m.vault).status != 0,
            "protocols are four-character codes")
    }
}
