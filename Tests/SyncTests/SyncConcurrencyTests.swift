import Foundation
import KeychainEngine
import KeychainModel
import Testing
import TestSupport

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
                try group.add(v1, service: "svc-\(round)-\(i)", account: "acct", secret: "secret-\(round)-\(i)", label: "label")
                try group.add(v2, service: "svc-far-\(round)-\(i)", account: "acct", secret: "secret-far-\(round)-\(i)", label: "label")
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

    private final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [Int: CommandResult] = [:]
        func set(_ i: Int, _ result: CommandResult) { lock.withLock { results[i] = result } }
        var all: [CommandResult] { lock.withLock { results.keys.sorted().compactMap { results[$0] } } }
    }
}
