import Foundation
import KeychainFSEngine
import KeychainFSSync
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// `sync init` and `sync join` against remotes that are not as expected: a failed one leaves the vault as
/// it was, and join does not depend on what the remote's HEAD names.
@Suite("sync init and join against unusual remotes", .serialized)
struct SyncSetupTests {
    @Test("join works when the remote's HEAD names another branch than main")
    func joinWhateverHeadNames() throws {
        let group = try SyncGroup(headBranch: "master")
        let v1 = try group.makeVault("v1"), v2 = try group.makeVault("v2")
        try group.add(v1, service: "svc-head", account: "acct-head", secret: "secret-head", label: "label-head")
        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", v1]))
        try group.join(v2, invitedBy: v1)
        #expect(try group.secret(v2, service: "svc-head", account: "acct-head") == "secret-head")
        try group.add(v2, service: "svc-back", account: "acct-back", secret: "secret-back", label: "label-back")
        for vault in [v2, v1] { try group.sync(vault) }
        #expect(try group.secret(v1, service: "svc-back", account: "acct-back") == "secret-back")
    }

    @Test("a failed init (a typo in the remote, a push the host refuses) leaves no sync key: init then works")
    func failedInitLeavesNoKey() throws {
        let group = try SyncGroup()
        let v1 = try group.makeVault("v1")
        let typo = group.cli(["sync", "init", group.root + "/no-such-remote.git", "--vault", v1])
        #expect(typo.status != 0)
        Self.expectNoSyncState(v1)

        let refusing = try Self.refusingRemote(group)
        let refused = group.cli(["sync", "init", refusing, "--vault", v1])
        #expect(refused.status != 0)
        Self.expectNoSyncState(v1)

        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", v1]))
        #expect(FileManager.default.fileExists(atPath: v1 + "/sync/key"))
    }

    @Test("a failed join (the host refuses the push) leaves the vault as it was: no key, no item; join then works")
    func failedJoinLeavesVaultAsItWas() throws {
        let group = try SyncGroup()
        let v1 = try group.makeVault("v1"), v2 = try group.makeVault("v2")
        try group.add(v1, service: "svc-join", account: "acct-join", secret: "secret-join", label: "label-join")
        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", v1]))
        let invite = group.cli(["sync", "invite", "--vault", v1])
        try expectSuccess(invite)
        let hook = group.remote + "/hooks/pre-receive"
        try Self.installRefusingHook(hook)
        let refused = group.cli(["sync", "join", group.remote, "--vault", v2, "--code-stdin"], stdin: invite.stdout)
        #expect(refused.status != 0)
        Self.expectNoSyncState(v2)
        #expect(try group.secret(v2, service: "svc-join", account: "acct-join") == nil)

        // The invitation was not used up: once the host takes pushes again, the same code joins.
        try FileManager.default.removeItem(atPath: hook)
        try expectSuccess(
            group.cli(["sync", "join", group.remote, "--vault", v2, "--code-stdin"], stdin: invite.stdout))
        #expect(
            try group.secret(v2, service: "svc-join", account: "acct-join") == nil,
            "nothing before the inviter admits it")
        for vault in [v1, v2] { try group.sync(vault) }
        #expect(try group.secret(v2, service: "svc-join", account: "acct-join") == "secret-join")
    }

    @Test("a sync key left without a clone (a failed init of an older release) no longer blocks init and join")
    func leftoverKeyReplaced() throws {
        let group = try SyncGroup()
        let v1 = try group.makeVault("v1"), v2 = try group.makeVault("v2")
        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", v1]))
        try group.add(v1, service: "svc-left", account: "acct-left", secret: "secret-left", label: "label-left")
        try group.sync(v1)
        // v2 as an older release left it after a failed init: a key, no clone (any sealed key will do).
        let orphan = try Data(contentsOf: URL(fileURLWithPath: v1 + "/sync/key"))
        try FileManager.default.createDirectory(atPath: v2 + "/sync", withIntermediateDirectories: true)
        try orphan.write(to: URL(fileURLWithPath: v2 + "/sync/key"))

        // A failed init keeps that key as it was; a join with a code then replaces it.
        #expect(group.cli(["sync", "init", group.root + "/no-such-remote.git", "--vault", v2]).status != 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: v2 + "/sync/key")) == orphan)
        #expect(!FileManager.default.fileExists(atPath: v2 + "/sync/repo"))
        try group.join(v2, invitedBy: v1)
        #expect(try group.secret(v2, service: "svc-left", account: "acct-left") == "secret-left")
    }

    static func expectNoSyncState(_ vault: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for name in ["key", "repo", "state.json", "identity", "trust"] {
            #expect(
                !FileManager.default.fileExists(atPath: vault + "/sync/" + name), "sync/\(name) is left",
                sourceLocation: sourceLocation)
        }
    }

    /// A bare repository whose host refuses every push.
    static func refusingRemote(_ group: SyncGroup) throws -> String {
        let path = group.root + "/refusing.git"
        try expectSuccess(Command.run("/usr/bin/git", ["init", "-q", "--bare", "-b", "main", path]))
        try installRefusingHook(path + "/hooks/pre-receive")
        return path
    }

    static func installRefusingHook(_ path: String) throws {
        try Data("#!/bin/sh\necho 'pushes are refused here' >&2\nexit 1\n".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
    }
}
