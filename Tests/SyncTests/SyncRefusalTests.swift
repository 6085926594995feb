import Foundation
import KeychainFSEngine
import KeychainFSSync
import KeychainFSModel
import Testing
import KeychainFSTestSupport

@Suite("sync refusals and damaged repositories", .serialized)
struct SyncRefusalTests {
    @Test("a wrong or expired invitation code is refused and reveals nothing; the vault gets no key")
    func invitationsRefused() throws {
        let group = try SyncGroup()
        let v1 = try group.makeVault("v1"), v2 = try group.makeVault("v2")
        try group.add(v1, service: "svc-inv", account: "acct-inv", secret: "secret-inv", label: "label-inv")
        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", v1]))
        let wrong = InvitationCode.random().grouped
        let refused = group.cli(["sync", "join", group.remote, "--vault", v2, "--code-stdin"], stdin: wrong)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("wrong or has expired"))
        #expect(!refused.stderr.contains(wrong) && !refused.stdout.contains("svc-inv"))
        #expect(!FileManager.default.fileExists(atPath: v2 + "/sync/key"))

        let invite = group.cli(["sync", "invite", "--vault", v1, "--expires", "1"])
        try expectSuccess(invite)
        #expect(invite.stdout.trimmingCharacters(in: .whitespacesAndNewlines).count == 35)
        Thread.sleep(forTimeInterval: 1.5)
        let expired = group.cli(["sync", "join", group.remote, "--vault", v2, "--code-stdin"], stdin: invite.stdout)
        #expect(expired.status != 0)
        #expect(expired.stderr.contains("wrong or has expired"))
        #expect(try group.secret(v2, service: "svc-inv", account: "acct-inv") == nil)

        // The next sync of a member removes the expired invitation from the repository.
        try group.sync(v1)
        let tree = Command.run("/usr/bin/git", ["-C", group.remote, "ls-tree", "-r", "--name-only", "main"]).stdout
        #expect(!tree.contains("invitations/"))
        #expect(tree.contains("FORMAT"))

        // Malformed codes are refused before anything is fetched.
        let malformed = group.cli(["sync", "join", group.remote, "--vault", v2, "--code-stdin"], stdin: "not-a-code!")
        #expect(malformed.status != 0)
        #expect(malformed.stderr.contains("alphabet"))
    }

    @Test("a corrupted item file is reported and skipped; the other vaults keep syncing")
    func corruptedFileSkipped() throws {
        let group = try SyncGroup()
        let v1 = try group.makeVault("v1"), v2 = try group.makeVault("v2"), v3 = try group.makeVault("v3")
        try group.add(v1, service: "svc-one", account: "acct-one", secret: "secret-one", label: "label-one")
        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", v1]))
        try group.join(v2, invitedBy: v1)
        try group.join(v3, invitedBy: v1)

        // Someone with push access damages one file and plants a foreign one.
        let work = group.root + "/vandal"
        try expectSuccess(Command.run("/usr/bin/git", ["clone", "-q", group.remote, work]))
        let items = try FileManager.default.contentsOfDirectory(atPath: work + "/items").filter { $0.count == 40 }
        #expect(items.count == 1)
        var damaged = try #require(FileManager.default.contents(atPath: work + "/items/" + items[0]))
        damaged[damaged.count - 1] ^= 0xFF
        try damaged.write(to: URL(fileURLWithPath: work + "/items/" + items[0]))
        try Data("KCS1 garbage".utf8).write(
            to: URL(fileURLWithPath: work + "/items/" + String(repeating: "ab", count: 20)))
        for args in [
            ["add", "-A"], ["-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "-m", "damage"],
            ["push", "-q", "origin", "HEAD:main"],
        ] {
            try expectSuccess(Command.run("/usr/bin/git", ["-C", work] + args))
        }

        // v2 reports both files and keeps its item; a new item from v3 still reaches v1 and v2.
        let synced = group.cli(["sync", "--vault", v2])
        try expectSuccess(synced)
        #expect(synced.stderr.components(separatedBy: "skipped items/").count - 1 == 2)
        #expect(!synced.stderr.contains("secret-one"))
        #expect(try group.secret(v2, service: "svc-one", account: "acct-one") == "secret-one")
        try group.add(v3, service: "svc-two", account: "acct-two", secret: "secret-two", label: "label-two")
        for vault in [v3, v1, v2] { try expectSuccess(group.cli(["sync", "--vault", vault])) }
        #expect(try group.secret(v1, service: "svc-two", account: "acct-two") == "secret-two")
        #expect(try group.secret(v2, service: "svc-two", account: "acct-two") == "secret-two")
    }

    @Test("sync before the first unlock is refused: the sync key is a class C key")
    func beforeFirstUnlockRefused() throws {
        let group = try SyncGroup()
        let v1 = try group.makeVault("v1")
        // Setting a passcode in one process; the next process's engine starts before its first unlock.
        try Keychain(vault: Vault(directory: v1)).setPasscode(Data("1234".utf8))
        let refused = group.cli(["sync", "init", group.remote, "--vault", v1])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("first unlock"))
        #expect(!FileManager.default.fileExists(atPath: v1 + "/sync/key"))
    }
}
