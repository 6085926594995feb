import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

@Suite("concurrent syncs of one vault", .serialized)
struct SyncConcurrencyTests {
    @Test("four syncs of one vault at once run one after the other: all succeed")
    func concurrentSyncsQueue() throws {
        let group = try SyncGroup()
        let v1 = try group.makeVault("v1"), v2 = try group.makeVault("v2")
        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", v1]))
        try group.join(v2, invitedBy: v1)
        for round in 1...2 {
            for i in 0..<4 {
                try group.add(
                    v1, service: "svc-\(round)-\(i)", account: "acct", secret: "secret-\(round)-\(i)", label: "label")
                try group.add(
                    v2, service: "svc-far-\(round)-\(i)", account: "acct", secret: "secret-far-\(round)-\(i)",
                    label: "label")
            }
            try group.sync(v2)
            let results = Results()
            let binary = MountedVault.binary
            DispatchQueue.concurrentPerform(iterations: 4) { i in
                results.set(i, Command.run(binary, ["sync", "--vault", v1], timeout: 240))
            }
            for result in results.all {
                #expect(result.status == 0, "a concurrent sync failed: \(result.stderr)")
            }
        }
        #expect(try group.secret(v1, service: "svc-far-2-3", account: "acct") == "secret-far-2-3")
    }

    @Test(
        "two members change the circle at once (A rotates while B removes C): the push that loses is undone and made again on top"
    )
    func concurrentMembershipChanges() throws {
        let group = try SyncGroup()
        let a = try group.makeVault("a"), b = try group.makeVault("b"), c = try group.makeVault("c")
        try group.add(a, service: "svc-both", account: "acct", secret: "secret-both", label: "label")
        try group.found(a)
        try group.join(b, invitedBy: a)
        try group.join(c, invitedBy: a)
        let results = Results()
        let binary = MountedVault.binary
        let commands = [["sync", "rotate", "--vault", a], ["sync", "remove", "c", "--vault", b]]
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            results.set(i, Command.run(binary, commands[i], timeout: 240))
        }
        for result in results.all { #expect(result.status == 0, "a concurrent change failed: \(result.stderr)") }
        for vault in [a, b] { try group.sync(vault) }
        for vault in [a, b] {
            let members = group.cli(["sync", "members", "--vault", vault]).stdout
            #expect(members.contains("removed by b"), "\(members)")
            let status = group.cli(["sync", "status", "--vault", vault]).stdout
            #expect(status.contains("epoch: 3"), "both new epochs are in the log: \(status)")
        }
        try group.add(b, service: "svc-after", account: "acct", secret: "secret-after", label: "label")
        for vault in [b, a] { try group.sync(vault) }
        #expect(try group.secret(a, service: "svc-after", account: "acct") == "secret-after")
        #expect(try group.secret(a, service: "svc-both", account: "acct") == "secret-both")
    }

    private final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [Int: CommandResult] = [:]
        func set(_ i: Int, _ result: CommandResult) { lock.withLock { results[i] = result } }
        var all: [CommandResult] { lock.withLock { results.keys.sorted().compactMap { results[$0] } } }
    }
}
