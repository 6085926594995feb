import Foundation
import Testing
import KeychainFSTestSupport

/// A host that moves the branch backwards or rewrites it (docs/sync.md, "Rollback"): every vault reports it and applies
/// nothing of it; deleted items stay deleted.
@Suite("sync against a host that rewinds, drops or rewrites history", .serialized)
struct SyncRollbackTests {
    /// Two members; `svc-gone` deleted everywhere. Returns the vaults and the commit from before the delete.
    static func deletedEverywhere(_ group: SyncGroup) throws -> (a: String, b: String, before: String) {
        let a = try group.makeVault("a"), b = try group.makeVault("b")
        try group.add(a, service: "svc-gone", account: "acct", secret: "secret-gone", label: "label-gone")
        try group.found(a)
        try group.join(b, invitedBy: a)
        #expect(try group.secret(b, service: "svc-gone", account: "acct") == "secret-gone")
        let before = group.remoteHead()
        try group.delete(a, service: "svc-gone", account: "acct")
        for vault in [a, b] { try group.sync(vault) }
        #expect(try group.secret(b, service: "svc-gone", account: "acct") == nil)
        return (a, b, before)
    }

    @Test("a host that rewinds the branch to before a delete: reported, nothing applied, the newer history pushed back")
    func rewindReportedAndHealed() throws {
        let group = try SyncGroup()
        let (a, b, before) = try Self.deletedEverywhere(group)
        let newest = group.remoteHead()
        try group.hostSetsMain(before)
        for vault in [b, a] {
            let synced = group.cli(["sync", "--vault", vault])
            try expectSuccess(synced)
            #expect(synced.stdout.contains("moved back to an older commit") || vault == a, "\(vault): \(synced.stdout)")
            #expect(try group.secret(vault, service: "svc-gone", account: "acct") == nil)
        }
        #expect(
            Command.run("/usr/bin/git", ["-C", group.remote, "merge-base", "--is-ancestor", newest, "main"]).succeeded,
            "the first vault to see the rewind pushed the newer history back")
    }

    @Test("a host that drops the newest commit: the vault that wrote it reports it and pushes it back")
    func droppedCommitReported() throws {
        let group = try SyncGroup()
        let (a, b, _) = try Self.deletedEverywhere(group)
        try group.add(a, service: "svc-new", account: "acct", secret: "secret-new", label: "label-new")
        try group.sync(a)
        try group.hostSetsMain(group.remoteHead() + "~1")
        let synced = group.cli(["sync", "--vault", a])
        try expectSuccess(synced)
        #expect(synced.stdout.contains("moved back to an older commit"), "\(synced.stdout)")
        try group.sync(b)
        #expect(try group.secret(b, service: "svc-new", account: "acct") == "secret-new")
        #expect(try group.secret(b, service: "svc-gone", account: "acct") == nil)
    }

    /// The host rewinds `main`, then takes an ordinary push from another member.
    /// The rewound member's sync merges the fork (its records checked as always) and pushes its newer records
    /// back; the circle converges without anyone's action.
    @Test("a host that rewinds and then takes another member's push: the circle converges")
    func rewindThenPushConverges() throws {
        let group = try SyncGroup()
        let a = try group.makeVault("a"), b = try group.makeVault("b")
        try group.add(a, service: "svc-old", account: "acct", secret: "secret-old", label: "label-old")
        try group.found(a)
        try group.join(b, invitedBy: a)
        try group.sync(a)
        try group.sync(b)
        let before = group.remoteHead()
        try group.add(a, service: "svc-a", account: "acct", secret: "secret-a", label: "label-a")
        try group.sync(a)
        try group.hostSetsMain(before)  // a's newest commit dropped
        try group.add(b, service: "svc-b", account: "acct", secret: "secret-b", label: "label-b")
        try group.sync(b)  // an ordinary push on the rewound branch
        let merged = group.cli(["sync", "--vault", a])
        try expectSuccess(merged)
        #expect(merged.stdout.contains("forked from"), "\(merged.stdout)")
        try group.sync(b)
        #expect(try group.secret(a, service: "svc-b", account: "acct") == "secret-b", "a has b's record")
        #expect(try group.secret(b, service: "svc-a", account: "acct") == "secret-a", "b has a's record back")
    }

    @Test("a host that rewrites history (the old tree as a new root, or reordered commits): refused, nothing applied")
    func rewrittenHistoryRefused() throws {
        let group = try SyncGroup()
        let (a, b, before) = try Self.deletedEverywhere(group)
        // A fork: the tree from before the delete, committed anew without parents.
        let fork = Command.run(
            "/usr/bin/git",
            [
                "-C", group.remote, "-c", "user.name=x", "-c", "user.email=x@x",
                "commit-tree", before + "^{tree}", "-m", "rewritten",
            ])
        try expectSuccess(fork)
        try group.hostSetsMain(fork.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        for vault in [a, b] {
            let synced = group.cli(["sync", "--vault", vault])
            #expect(synced.status != 0 && synced.stderr.contains("history was rewritten"), "\(synced.stderr)")
            #expect(synced.stderr.contains("nothing of it was applied"))
            #expect(try group.secret(vault, service: "svc-gone", account: "acct") == nil)
        }
    }

    @Test("a host that deletes the membership log, or garbles it: refused, nothing applied")
    func missingOrGarbledLogRefused() throws {
        let group = try SyncGroup()
        let (a, b, _) = try Self.deletedEverywhere(group)
        try group.pushAsHost("no-log") { work in try FileManager.default.removeItem(atPath: work + "/members/log") }
        let missing = group.cli(["sync", "--vault", a])
        #expect(missing.status != 0 && missing.stderr.contains("no membership log"), "\(missing.stderr)")
        try group.pushAsHost("garbled-log") { work in
            try Data(repeating: 0xff, count: 64).write(to: URL(fileURLWithPath: work + "/members/log"))
        }
        let garbled = group.cli(["sync", "--vault", b])
        #expect(garbled.status != 0 && garbled.stderr.contains("membership log is refused"), "\(garbled.stderr)")
        for vault in [a, b] { #expect(try group.secret(vault, service: "svc-gone", account: "acct") == nil) }
    }

    @Test("a host that puts an older membership log back (undoing a rotation): refused, nothing applied")
    func olderLogRefused() throws {
        let group = try SyncGroup()
        let (a, b, _) = try Self.deletedEverywhere(group)
        let work = try group.hostCheckout("old-log")
        let oldLog = try Data(contentsOf: URL(fileURLWithPath: work + "/members/log"))
        let oldKeyring = try Data(contentsOf: URL(fileURLWithPath: work + "/members/keyring"))
        try expectSuccess(group.cli(["sync", "rotate", "--vault", a]))
        try group.sync(b)
        try group.pushAsHost("old-log") { work in
            try oldLog.write(to: URL(fileURLWithPath: work + "/members/log"))
            try oldKeyring.write(to: URL(fileURLWithPath: work + "/members/keyring"))
        }
        for vault in [a, b] {
            let synced = group.cli(["sync", "--vault", vault])
            #expect(
                synced.status != 0 && synced.stderr.contains("does not extend the one this vault verified"),
                "\(synced.stderr)")
            #expect(try group.secret(vault, service: "svc-gone", account: "acct") == nil)
        }
    }
}

/// Item files a host deletes are restored by one sync of a member that holds
/// their records, not one round later.
@Suite("sync against a host that deletes item files", .serialized)
struct SyncDroppedFilesTests {
    func itemFiles(_ group: SyncGroup) -> [String] {
        Command.run("/usr/bin/git", ["-C", group.remote, "ls-tree", "--name-only", "main", "items/"]).stdout
            .split(separator: "\n").map(String.init)
    }

    @Test("one sync of a member that holds the records restores the files a host deleted")
    func oneSyncRestoresDroppedFiles() throws {
        let group = try SyncGroup()
        let a = try group.makeVault("a"), b = try group.makeVault("b")
        for n in 0..<8 {
            try group.add(a, service: "svc-\(n)", account: "acct", secret: "secret-\(n)", label: "label-\(n)")
        }
        try group.found(a)
        try group.join(b, invitedBy: a)
        try group.sync(a)
        let all = itemFiles(group)
        #expect(all.count >= 8, "\(all)")
        let dropped = try #require(all.first)
        try group.pushAsHost("drop-one") { work in try FileManager.default.removeItem(atPath: work + "/" + dropped) }
        #expect(itemFiles(group).count == all.count - 1)
        try group.sync(b)
        #expect(itemFiles(group) == all, "one sync of b put the dropped file back")
        for n in 0..<8 { #expect(try group.secret(b, service: "svc-\(n)", account: "acct") == "secret-\(n)") }
    }
}
