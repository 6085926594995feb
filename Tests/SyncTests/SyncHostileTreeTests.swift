import Foundation
import KeychainEngine
import Testing
import TestSupport

/// The repository is untrusted input: what a hostile host pushes into the tree changes nothing in how a
/// clone merges, and is never followed out of the clone.
@Suite("sync against a hostile host's tree", .serialized)
struct SyncHostileTreeTests {
    @Test("a pushed .gitattributes (items/* merge=union) does not replace the merge driver: concurrent edits still converge")
    func pushedAttributesChangeNothing() throws {
        let group = try SyncGroup()
        let v1 = try group.makeVault("v1"), v2 = try group.makeVault("v2")
        try group.add(v1, service: "svc-attr", account: "acct-attr", secret: "secret-attr-0", label: "label-attr")
        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", v1]))
        try group.join(v2, invitedBy: v1)
        try group.pushAsHost("attributes") { work in
            try Data("items/* merge=union\n* merge=union\n".utf8).write(to: URL(fileURLWithPath: work + "/.gitattributes"))
        }
        for round in 1...2 {
            try group.update(v1, service: "svc-attr", account: "acct-attr", ["v_Data": .data(Data("secret-v1-\(round)".utf8))])
            Thread.sleep(forTimeInterval: 0.05)
            try group.update(v2, service: "svc-attr", account: "acct-attr", ["v_Data": .data(Data("secret-v2-\(round)".utf8))])
            for vault in [v1, v2, v1] { try group.sync(vault) }
            for vault in [v1, v2] {
                #expect(try group.secret(vault, service: "svc-attr", account: "acct-attr") == "secret-v2-\(round)")
            }
        }
    }
}
