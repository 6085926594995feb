// The four SecItem operations against a vault of 1,000 generic passwords in one service, plus the
// filesystem's own read path (a secret by persistent reference). Every figure is one call.
import Benchmark
import Foundation
import KeychainEngine
import Synchronization

/// A vault of `itemCount` items in one service, and a walk over them that never repeats a neighbour.
final class Fixture: Sendable {
    static let itemCount = 1_000
    static let service = "bench.service"
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kcfs-engine-bench-\(getpid())").path
    let keychain: Keychain
    let caller = Caller()
    let references: [Data]
    private let cursor = Atomic<Int>(0)

    init() throws {
        keychain = try Keychain(vault: try Vault.create(at: directory, testDevice: true))
        var references: [Data] = []
        for index in 0..<Self.itemCount {
            let added = try keychain.add(Self.item("account\(index)", ["v_Data": .data(Data("secret-\(index)".utf8)), "r_PersistentRef": true]),
                                         caller: caller)
            references.append(added!.dataValue!)
        }
        self.references = references
    }

    static func item(_ account: String, _ extra: KeychainDictionary = [:]) -> KeychainDictionary {
        ["class": "genp", "svce": .string(service), "acct": .string(account)].merging(extra) { $1 }
    }

    /// The next item of the walk (a stride coprime with the count visits every item).
    func nextIndex() -> Int { (cursor.add(7919, ordering: .relaxed).newValue) % Self.itemCount }
    func nextAccount() -> String { "account\(nextIndex())" }
}

let fixture = try Fixture()
defer { try? FileManager.default.removeItem(atPath: fixture.directory) }

benchmark("add (new item)") {
    // Another service: the fixture keeps its 1,000 items.
    var query = Fixture.item("new-\(UUID().uuidString)", ["v_Data": .data(Data("s".utf8))])
    query["svce"] = "bench.added"
    _ = try fixture.keychain.add(query, caller: fixture.caller)
}

benchmark("copyMatching by primary key, r_Data") {
    _ = try fixture.keychain.copyMatching(Fixture.item(fixture.nextAccount(), ["r_Data": true]), caller: fixture.caller)
}

benchmark("copyMatching by primary key, r_Attributes") {
    _ = try fixture.keychain.copyMatching(Fixture.item(fixture.nextAccount(), ["r_Attributes": true]), caller: fixture.caller)
}

benchmark("secret by persistent reference (the fs's open)") {
    _ = try fixture.keychain.read(.data, of: fixture.references[fixture.nextIndex()], caller: fixture.caller)
}

benchmark("copyMatching of 1,000 items, m_LimitAll r_Attributes") {
    _ = try fixture.keychain.copyMatching(["class": "genp", "svce": .string(Fixture.service), "m_Limit": "m_LimitAll", "r_Attributes": true],
                                          caller: fixture.caller)
}

benchmark("update v_Data by primary key") {
    try fixture.keychain.update(Fixture.item(fixture.nextAccount()), ["v_Data": .data(Data("rotated".utf8))], caller: fixture.caller)
}

Benchmark.main()
