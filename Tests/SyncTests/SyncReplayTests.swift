import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

@Suite("sync against a host that replays old item files", .serialized)
struct SyncReplayTests {
    @Test("a host that commits an older item file over a tombstone brings nothing back: refused, reported, healed")
    func deletedItemsStayDeleted() throws {
        let group = try SyncGroup()
        let v1 = try group.makeVault("v1"), v2 = try group.makeVault("v2")
        try group.add(v1, service: "svc-gone", account: "acct-gone", secret: "secret-gone", label: "label-gone")
        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", v1]))
        try group.join(v2, invitedBy: v1)
        #expect(try group.secret(v2, service: "svc-gone", account: "acct-gone") == "secret-gone")
        let old = Command.run("/usr/bin/git", ["-C", group.remote, "rev-parse", "main"]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)

        try group.delete(v1, service: "svc-gone", account: "acct-gone")
        for vault in [v1, v2] { try group.sync(vault) }
        #expect(try group.secret(v2, service: "svc-gone", account: "acct-gone") == nil)

        // The host puts the item files of the older commit back on top, with no key at all, twice: each
        // vault in turn is the first to see it (the first one refuses it and puts the tombstone back).
        for (round, (first, second)) in [(v1, v2), (v2, v1)].enumerated() {
            try group.pushAsHost("replay-\(round)") { work in
                try expectSuccess(Command.run("/usr/bin/git", ["-C", work, "checkout", old, "--", "items"]))
            }
            let synced = group.cli(["sync", "--vault", first])
            try expectSuccess(synced)
            #expect(synced.stderr.contains("older than"), "the replay is reported: \(synced.stderr)")
            #expect(!synced.stderr.contains("secret-gone") && !synced.stderr.contains("svc-gone"))
            try group.sync(second)
            for vault in [first, second] {
                #expect(try group.secret(vault, service: "svc-gone", account: "acct-gone") == nil)
            }
        }
        // The members wrote the tombstone back: a vault that joins now does not get the item either.
        let v3 = try group.makeVault("v3")
        try group.join(v3, invitedBy: v1)
        #expect(try group.secret(v3, service: "svc-gone", account: "acct-gone") == nil)
        // Nothing in the vault's sync directory names the item in clear.
        let memory = try Data(contentsOf: URL(fileURLWithPath: v1 + "/sync/versions"))
        #expect(!String(decoding: memory, as: UTF8.self).contains("gone"))
    }
}
