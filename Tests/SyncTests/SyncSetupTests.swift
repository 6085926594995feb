import Foundation
import KeychainEngine
import Testing
import TestSupport

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
}
