import Foundation
import KeychainFSEngine
import KeychainFSSync
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// The repository is untrusted input: what a hostile host pushes into the tree changes nothing in how a
/// clone merges, and is never followed out of the clone.
@Suite("sync against a hostile host's tree", .serialized)
struct SyncHostileTreeTests {
    @Test(
        "a pushed .gitattributes (items/* merge=union) does not replace the merge driver: concurrent edits still converge"
    )
    func pushedAttributesChangeNothing() throws {
        let group = try SyncGroup()
        let v1 = try group.makeVault("v1"), v2 = try group.makeVault("v2")
        try group.add(v1, service: "svc-attr", account: "acct-attr", secret: "secret-attr-0", label: "label-attr")
        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", v1]))
        try group.join(v2, invitedBy: v1)
        try group.pushAsHost("attributes") { work in
            try Data("items/* merge=union\n* merge=union\n".utf8).write(
                to: URL(fileURLWithPath: work + "/.gitattributes"))
        }
        for round in 1...2 {
            try group.update(
                v1, service: "svc-attr", account: "acct-attr", ["v_Data": .data(Data("secret-v1-\(round)".utf8))])
            Thread.sleep(forTimeInterval: 0.05)
            try group.update(
                v2, service: "svc-attr", account: "acct-attr", ["v_Data": .data(Data("secret-v2-\(round)".utf8))])
            for vault in [v1, v2, v1] { try group.sync(vault) }
            for vault in [v1, v2] {
                #expect(try group.secret(vault, service: "svc-attr", account: "acct-attr") == "secret-v2-\(round)")
            }
        }
    }

    @Test("a pushed symlink or submodule is ignored: sync never writes through it, and items keep flowing")
    func linksAndSubmodulesIgnored() throws {
        let group = try SyncGroup()
        let outside = try Self.pushLinkedItems(group)
        let (v1, v2) = (group.vaults[0], group.vaults[1])
        // Both members take the host's commit first (a fast-forward), then write through where `items` stands.
        for vault in [v2, v1] { try group.sync(vault) }
        try group.add(v2, service: "svc-new", account: "acct-new", secret: "secret-new", label: "label-new")
        for vault in [v2, v1] { try group.sync(vault) }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty,
            "sync wrote through the pushed symlink")
        #expect(try group.secret(v1, service: "svc-new", account: "acct-new") == "secret-new")
        #expect(try group.secret(v2, service: "svc-link", account: "acct-link") == "secret-link")

        // Invitations still work beside the planted submodule entry.
        let v3 = try group.makeVault("v3")
        try group.join(v3, invitedBy: v1)
        #expect(try group.secret(v3, service: "svc-new", account: "acct-new") == "secret-new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
    }

    @Test("with the protection switched off (test devices only), the same push makes sync write outside the clone")
    func theLinkTestCanFail() throws {
        let group = try SyncGroup()
        let outside = try Self.pushLinkedItems(group)
        let v2 = group.vaults[1]
        let off = ["KEYCHAINFS_TEST_DISABLE_GUARDS": "sync-untrusted-tree"]
        try expectSuccess(group.cli(["sync", "--vault", v2], environment: off))
        try group.add(v2, service: "svc-new", account: "acct-new", secret: "secret-new", label: "label-new")
        _ = group.cli(["sync", "--vault", v2], environment: off)
        #expect(
            try !FileManager.default.contentsOfDirectory(atPath: outside).isEmpty,
            "the switch restores the old behaviour")
    }

    /// Two members (v1, v2) sharing one item; then the host replaces `items/` with a link to a directory
    /// outside every clone (returned), adds another link and a submodule entry at `invitations`.
    static func pushLinkedItems(_ group: SyncGroup) throws -> String {
        let v1 = try group.makeVault("v1"), v2 = try group.makeVault("v2")
        try group.add(v1, service: "svc-link", account: "acct-link", secret: "secret-link", label: "label-link")
        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", v1]))
        try group.join(v2, invitedBy: v1)
        let outside = group.root + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let commit = Command.run("/usr/bin/git", ["-C", group.remote, "rev-parse", "main"]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        try group.pushAsHost("links") { work in
            try FileManager.default.removeItem(atPath: work + "/items")
            try FileManager.default.createSymbolicLink(atPath: work + "/items", withDestinationPath: outside)
            try FileManager.default.createSymbolicLink(atPath: work + "/notes", withDestinationPath: outside)
            try expectSuccess(
                Command.run(
                    "/usr/bin/git",
                    ["-C", work, "update-index", "--add", "--cacheinfo", "160000,\(commit),invitations"]))
        }
        return outside
    }
}
