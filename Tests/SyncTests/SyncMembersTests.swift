import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSSync
import Testing
import KeychainFSTestSupport

/// A circle of three vaults: A founds it, B and C join, A removes C (docs/sync.md).
@Suite("sync members: remove, rotate, leave, signed records", .serialized)
struct SyncMembersTests {
    /// A, B and C in one circle sharing the item `svc-old`; then A removes C and changes things.
    final class Circle {
        let group: SyncGroup
        let a: String, b: String, c: String

        init() throws {
            group = try SyncGroup()
            a = try group.makeVault("a")
            b = try group.makeVault("b")
            c = try group.makeVault("c")
            try group.add(a, service: "svc-old", account: "acct", secret: "secret-old", label: "label-old")
            try group.found(a)
            try group.join(b, invitedBy: a)
            try group.join(c, invitedBy: a)
            #expect(try group.secret(c, service: "svc-old", account: "acct") == "secret-old")
        }

        /// A removes C, adds `svc-new`, changes `svc-old`; A and B sync.
        func removeC() throws {
            let removed = group.cli(["sync", "remove", "c", "--vault", a])
            try expectSuccess(removed)
            #expect(removed.stdout.contains("new epoch"), "\(removed.stdout)")
            try group.add(a, service: "svc-new", account: "acct", secret: "secret-new", label: "label-new")
            try group.update(a, service: "svc-old", account: "acct", ["v_Data": .data(Data("secret-changed".utf8))])
            for vault in [a, b] { try group.sync(vault) }
        }
    }

    @Test("C removed by A reads nothing written after; its own sync stops; A and B converge; members shows the log")
    func removedMemberReadsNothingNew() throws {
        let circle = try Circle()
        let group = circle.group
        try group.add(
            circle.a, service: "svc-untouched", account: "acct", secret: "secret-untouched", label: "label-untouched")
        for vault in [circle.a, circle.c] { try group.sync(vault) }
        #expect(try group.secret(circle.c, service: "svc-untouched", account: "acct") == "secret-untouched")
        try circle.removeC()
        #expect(try group.secret(circle.b, service: "svc-new", account: "acct") == "secret-new")
        #expect(try group.secret(circle.b, service: "svc-old", account: "acct") == "secret-changed")

        let stopped = group.cli(["sync", "--vault", circle.c])
        #expect(stopped.status != 0 && stopped.stderr.contains("removed from its circle by a"), "\(stopped.stderr)")
        #expect(try group.secret(circle.c, service: "svc-new", account: "acct") == nil)
        #expect(try group.secret(circle.c, service: "svc-old", account: "acct") == "secret-old")
        // With every key it holds, C opens none of the repository's item files: all were re-sealed in an
        // epoch it was not given, the untouched item's too.
        let work = try group.hostCheckout("after-removal")
        let names = try FileManager.default.contentsOfDirectory(atPath: work + "/items")
        #expect(names.count == 3)
        let forge = try MemberForge(circle.c)
        for name in names {
            let refusal = try forge.refusal(
                try Data(contentsOf: URL(fileURLWithPath: work + "/items/" + name)), name: name)
            #expect(refusal?.contains("unknown epoch") == true, "C's keys open \(name): \(refusal ?? "opened")")
        }

        let members = group.cli(["sync", "members", "--vault", circle.b])
        try expectSuccess(members)
        // What the message says works: C leaves, keeps its items, and could be invited again.
        try expectSuccess(group.cli(["sync", "leave", "--vault", circle.c]))
        #expect(!FileManager.default.fileExists(atPath: circle.c + "/sync/repo"))
        #expect(try group.secret(circle.c, service: "svc-old", account: "acct") == "secret-old")
        let lines = members.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(members.stdout)")
        #expect(lines.contains { $0.hasPrefix("a\t") && $0.contains("added by a") })
        #expect(lines.contains { $0.hasPrefix("b\t") && $0.contains("added by a") && $0.contains("(this vault)") })
        #expect(lines.contains { $0.hasPrefix("c\t") && $0.contains("added by a") && $0.contains("removed by a") })
        // A vault does not remove itself: it leaves.
        #expect(group.cli(["sync", "remove", "b", "--vault", circle.b]).stderr.contains("leave"))
    }

    /// C, removed, signs a newer version of `svc-old` with its old epoch key and pushes it (as the host can
    /// for it); A syncs with `environment`. Returns A's sync.
    static func removedMemberPushesRecord(_ circle: Circle, environment: [String: String]? = nil) throws
        -> CommandResult
    {
        try circle.removeC()
        let forge = try MemberForge(circle.c)
        let file = try forge.signedFile(
            try forge.record(service: "svc-old", account: "acct").changed(secret: "secret-from-c", later: 86400))
        try circle.group.pushAsHost("from-c") { work in
            try file.bytes.write(to: URL(fileURLWithPath: work + "/items/" + file.name))
        }
        return circle.group.cli(["sync", "--vault", circle.a], environment: environment)
    }

    @Test("a record C signs and pushes after its removal is refused by A and B, reported; the rest goes on")
    func removedMembersRecordRefused() throws {
        let circle = try Circle()
        let synced = try Self.removedMemberPushesRecord(circle)
        try expectSuccess(synced)
        #expect(synced.stderr.contains("removed from the circle; refused"), "\(synced.stderr)")
        let fromB = circle.group.cli(["sync", "--vault", circle.b])
        try expectSuccess(fromB)
        for vault in [circle.a, circle.b] {
            #expect(try circle.group.secret(vault, service: "svc-old", account: "acct") == "secret-changed")
            #expect(try circle.group.secret(vault, service: "svc-new", account: "acct") == "secret-new")
        }
        // A and B keep converging.
        try circle.group.add(
            circle.b, service: "svc-later", account: "acct", secret: "secret-later", label: "label-later")
        for vault in [circle.b, circle.a] { try circle.group.sync(vault) }
        #expect(try circle.group.secret(circle.a, service: "svc-later", account: "acct") == "secret-later")
    }

    @Test(
        "with signature checks switched off (test devices only), the removed member's record is applied: the refusal test can fail"
    )
    func switchShowsRefusalCanFail() throws {
        let circle = try Circle()
        let synced = try Self.removedMemberPushesRecord(
            circle, environment: ["KEYCHAINFS_TEST_DISABLE_GUARDS": "sync-signatures"])
        try expectSuccess(synced)
        #expect(
            try circle.group.secret(circle.a, service: "svc-old", account: "acct") == "secret-from-c",
            "the switch restores blind trust")
    }

    @Test(
        "a member's forged record for an item of another access group, a bad signature, an unknown epoch, a stranger's signature, an unsigned file: refused, reported; the rest goes on"
    )
    func forgedRecordsRefused() throws {
        let group = try SyncGroup()
        let a = try group.makeVault("a"), b = try group.makeVault("b")
        try group.add(a, service: "svc-x", account: "acct", secret: "secret-x", label: "label-x")
        try group.add(a, service: "svc-y", account: "acct", secret: "secret-y", label: "label-y")
        try group.found(a)
        try group.join(b, invitedBy: a)
        let forge = try MemberForge(b)
        let x = try forge.record(service: "svc-x", account: "acct"),
            y = try forge.record(service: "svc-y", account: "acct")
        // B, a member, signs a record of another access group under x's file name (the name's rollback memory
        // would not cover the item it really is).
        let forged = try forge.signedFile(
            x.changed(secret: "forged", attributes: ["agrp": .string("TEAM.other")]), name: try forge.fileName(x))
        // A good file of y with one bit of its signature flipped.
        var badSignature = try forge.signedFile(y.changed(secret: "bad-signature"))
        badSignature.bytes[badSignature.bytes.count - 1] ^= 1
        // A file claiming epoch 99, which nobody holds a key of.
        var unknownEpoch = try forge.signedFile(x.changed(secret: "unknown-epoch", later: 7200))
        unknownEpoch.bytes.replaceSubrange(4..<8, with: [0, 0, 0, 99])
        // The same signed by someone in no circle, and an unsigned file of sync format 1.
        let stranger = try forge.signedFile(y.changed(secret: "stranger", later: 10800))
        let strangers = (name: stranger.name, bytes: MemberForge.signedByStranger(stranger.bytes, name: stranger.name))
        let unsigned = (
            name: String(repeating: "cd", count: 20), bytes: Data("KCS1".utf8) + Data(repeating: 9, count: 600)
        )
        let before = try MemberForge(a).keychain.synchronizableItems().count
        try group.add(b, service: "svc-z", account: "acct", secret: "secret-z", label: "label-z")
        try group.sync(b)
        for (round, file) in [forged, badSignature, unknownEpoch, strangers, unsigned].enumerated() {
            try group.pushAsHost("forged-\(round)") { work in
                try file.bytes.write(to: URL(fileURLWithPath: work + "/items/" + file.name))
            }
            let synced = group.cli(["sync", "--vault", a])
            try expectSuccess(synced)
            let reason = [
                "for another item than its file name says", "bad signature", "unknown epoch", "signed by a non-member",
                "unsigned item file",
            ][round]
            #expect(synced.stderr.contains(reason), "round \(round): \(synced.stderr)")
        }
        #expect(try group.secret(a, service: "svc-x", account: "acct") == "secret-x")
        #expect(try group.secret(a, service: "svc-y", account: "acct") == "secret-y")
        #expect(try group.secret(a, service: "svc-z", account: "acct") == "secret-z", "the rest of the sync goes on")
        #expect(
            try MemberForge(a).keychain.synchronizableItems().count == before + 1,
            "no item of another access group appeared")
    }

    @Test("rotate starts a new epoch for everyone; leave signs out and the next sync starts one without the leaver")
    func rotateAndLeave() throws {
        let circle = try Circle()
        let group = circle.group
        let rotated = group.cli(["sync", "rotate", "--vault", circle.b])
        try expectSuccess(rotated)
        #expect(rotated.stdout.contains("new epoch"))
        for vault in [circle.a, circle.c] { try group.sync(vault) }
        try group.add(circle.c, service: "svc-c", account: "acct", secret: "secret-c", label: "label-c")
        try group.sync(circle.c)
        try group.sync(circle.a)
        #expect(try group.secret(circle.a, service: "svc-c", account: "acct") == "secret-c")

        let left = group.cli(["sync", "leave", "--vault", circle.c])
        try expectSuccess(left)
        #expect(!FileManager.default.fileExists(atPath: circle.c + "/sync/repo"))
        #expect(try group.secret(circle.c, service: "svc-c", account: "acct") == "secret-c", "its items stay")
        let next = group.cli(["sync", "--vault", circle.a])
        try expectSuccess(next)
        #expect(next.stdout.contains("new epoch"), "A starts an epoch without C: \(next.stdout)")
        let members = group.cli(["sync", "members", "--vault", circle.a]).stdout
        #expect(members.contains("removed by c"), "\(members)")
        // Everything was re-sealed in the new epoch, the leaver's own item too: B syncs without a refusal,
        // and a vault that joins now (given only the new epoch's key) gets every item.
        let fromB = group.cli(["sync", "--vault", circle.b])
        try expectSuccess(fromB)
        #expect(!fromB.stderr.contains("skipped"), "\(fromB.stderr)")
        let d = try group.makeVault("d")
        try group.join(d, invitedBy: circle.b)
        #expect(try group.secret(d, service: "svc-c", account: "acct") == "secret-c")
        #expect(try group.secret(d, service: "svc-old", account: "acct") == "secret-old")
    }

    @Test("a circle of sync format 1 gets a clear message with the upgrade step; leave, then init, keeps every item")
    func formatOneUpgrade() throws {
        let group = try SyncGroup()
        let a = try group.makeVault("a")
        try group.add(a, service: "svc-kept", account: "acct", secret: "secret-kept", label: "label-kept")
        try group.found(a)
        try group.pushAsHost("format-1") { work in
            try Data("keychainfs-sync 1\n".utf8).write(to: URL(fileURLWithPath: work + "/FORMAT"))
        }
        let refused = group.cli(["sync", "--vault", a])
        #expect(
            refused.status != 0 && refused.stderr.contains("sync format 1") && refused.stderr.contains("sync leave"),
            "\(refused.stderr)")
        try expectSuccess(group.cli(["sync", "leave", "--vault", a]))
        let fresh = group.root + "/fresh.git"
        try expectSuccess(Command.run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", fresh]))
        try expectSuccess(group.cli(["sync", "init", fresh, "--vault", a, "--name", "a"]))
        #expect(try group.secret(a, service: "svc-kept", account: "acct") == "secret-kept")
    }
}
