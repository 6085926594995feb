import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

@Suite("sync across vaults through git", .serialized)
struct SyncPropagationTests {
    @Test(
        "three vaults: add, update, primary-key update and delete propagate; concurrent changes converge to the newer mdat"
    )
    func threeVaultsConverge() throws {
        let group = try SyncGroup()
        let v1 = try group.makeVault("v1"), v2 = try group.makeVault("v2"), v3 = try group.makeVault("v3")
        try group.add(v1, service: "svc-alpha", account: "acct-alpha", secret: "secret-alpha-1", label: "label-alpha")
        try group.add(
            v1, service: "svc-local", account: "acct-local", secret: "secret-local-1", label: "label-local",
            accessible: "cku")
        try group.add(
            v1, service: "svc-nosync", account: "acct-nosync", secret: "secret-nosync-1", label: "label-nosync",
            synchronizable: false)
        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", v1]))
        try group.join(v2, invitedBy: v1)
        try group.join(v3, invitedBy: v2)
        #expect(try group.secret(v2, service: "svc-alpha", account: "acct-alpha") == "secret-alpha-1")
        #expect(try group.secret(v3, service: "svc-alpha", account: "acct-alpha") == "secret-alpha-1")
        #expect(try group.secret(v3, service: "svc-local", account: "acct-local") == nil)

        // An add on v2 and an update on v3 reach every vault.
        try group.add(v2, service: "svc-beta", account: "acct-beta", secret: "secret-beta-1", label: "label-beta")
        try group.update(
            v3, service: "svc-alpha", account: "acct-alpha", ["v_Data": .data(Data("secret-alpha-2".utf8))])
        for vault in [v2, v3, v1, v2] { try group.sync(vault) }
        for vault in [v1, v2, v3] {
            #expect(try group.secret(vault, service: "svc-beta", account: "acct-beta") == "secret-beta-1")
            #expect(try group.secret(vault, service: "svc-alpha", account: "acct-alpha") == "secret-alpha-2")
        }

        // A primary-key update on v1 (a tombstone under the old name, a new file) and a delete on v3.
        try group.update(v1, service: "svc-alpha", account: "acct-alpha", ["acct": "acct-gamma"])
        try group.delete(v3, service: "svc-beta", account: "acct-beta")
        for vault in [v1, v3, v2, v1] { try group.sync(vault) }
        for vault in [v1, v2, v3] {
            #expect(try group.secret(vault, service: "svc-alpha", account: "acct-alpha") == nil)
            #expect(try group.secret(vault, service: "svc-alpha", account: "acct-gamma") == "secret-alpha-2")
            #expect(try group.secret(vault, service: "svc-beta", account: "acct-beta") == nil)
        }

        // Concurrent updates of one item: v3's is newer and wins, merged on v3 (a joined vault).
        try group.update(v2, service: "svc-alpha", account: "acct-gamma", ["v_Data": .data(Data("secret-older".utf8))])
        Thread.sleep(forTimeInterval: 0.05)
        try group.update(v3, service: "svc-alpha", account: "acct-gamma", ["v_Data": .data(Data("secret-newer".utf8))])
        for vault in [v2, v3, v1, v2] { try group.sync(vault) }
        for vault in [v1, v2, v3] {
            #expect(try group.secret(vault, service: "svc-alpha", account: "acct-gamma") == "secret-newer")
        }

        // A delete racing an update (neither vault has seen the other's change). A tombstone's mdat is when
        // the deletion was first exported: here v2's update is later and wins on every vault.
        try group.delete(v1, service: "svc-alpha", account: "acct-gamma")
        try group.sync(v1)
        Thread.sleep(forTimeInterval: 0.05)
        try group.update(
            v2, service: "svc-alpha", account: "acct-gamma", ["v_Data": .data(Data("secret-survivor".utf8))])
        for vault in [v2, v3, v1, v2] { try group.sync(vault) }
        for vault in [v1, v2, v3] {
            #expect(try group.secret(vault, service: "svc-alpha", account: "acct-gamma") == "secret-survivor")
        }

        // And the other way round: the tombstone is later and wins, merged on v1.
        try group.update(v3, service: "svc-alpha", account: "acct-gamma", ["v_Data": .data(Data("secret-doomed".utf8))])
        try group.sync(v3)
        Thread.sleep(forTimeInterval: 0.05)
        try group.delete(v1, service: "svc-alpha", account: "acct-gamma")
        for vault in [v1, v2, v3, v1] { try group.sync(vault) }
        for vault in [v1, v2, v3] {
            #expect(try group.secret(vault, service: "svc-alpha", account: "acct-gamma") == nil)
        }

        // ThisDeviceOnly and sync = 0 items stayed home.
        for vault in [v2, v3] {
            #expect(try group.secret(vault, service: "svc-local", account: "acct-local") == nil)
            #expect(try group.secret(vault, service: "svc-nosync", account: "acct-nosync") == nil)
        }
        #expect(try group.secret(v1, service: "svc-local", account: "acct-local") == "secret-local-1")

        // Nothing the test stored is readable in the repository.
        let text = group.repositoryText()
        #expect(text.contains("keychainfs sync"))
        for term in ["secret-", "acct-", "svc-", "label-", "alpha", "gamma", "beta"] {
            #expect(!text.contains(term), "found \(term)")
        }

        // A second sync with no change commits nothing.
        let before = Command.run("/usr/bin/git", ["-C", group.remote, "rev-list", "--all", "--count"]).stdout
        for vault in [v1, v2, v3] { try group.sync(vault) }
        #expect(Command.run("/usr/bin/git", ["-C", group.remote, "rev-list", "--all", "--count"]).stdout == before)
    }
}
