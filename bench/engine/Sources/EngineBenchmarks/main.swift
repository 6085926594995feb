// The four SecItem operations against a vault of 1,000 generic passwords in one service, plus the
// filesystem's own read path (a secret by persistent reference), in the engine and through the `Security`
// module in-process (no daemon: what an app or a test pays). Every figure is one call. bench/run runs it
// with `--columns name,median,p99,iterations` and sets each call against bench/tools/enginefloor.c's.
import Benchmark
import Foundation
import KeychainFSEngine
import KeychainFSModel
import Security
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
            let added = try keychain.add(
                Self.item("account\(index)", ["v_Data": .data(Data("secret-\(index)".utf8)), "r_PersistentRef": true]),
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

benchmark("add (new item)") { state in
    // Another service: the fixture keeps its 1,000 items. The query is made before timing, as the floor
    // program names its item before it starts its clock.
    var query = Fixture.item("new-\(UUID().uuidString)", ["v_Data": .data(Data("s".utf8))])
    query["svce"] = "bench.added"
    state.start()
    _ = try fixture.keychain.add(query, caller: fixture.caller)
    try state.end()
}

benchmark("copyMatching by primary key, r_Data") {
    _ = try fixture.keychain.copyMatching(Fixture.item(fixture.nextAccount(), ["r_Data": true]), caller: fixture.caller)
}

benchmark("copyMatching by primary key, r_Attributes") {
    _ = try fixture.keychain.copyMatching(
        Fixture.item(fixture.nextAccount(), ["r_Attributes": true]), caller: fixture.caller)
}

benchmark("secret by persistent reference (the fs's open)") {
    _ = try fixture.keychain.read(.data, of: fixture.references[fixture.nextIndex()], caller: fixture.caller)
}

benchmark("copyMatching of 1,000 items, m_LimitAll r_Attributes") {
    _ = try fixture.keychain.copyMatching(
        ["class": "genp", "svce": .string(Fixture.service), "m_Limit": "m_LimitAll", "r_Attributes": true],
        caller: fixture.caller)
}

benchmark("update v_Data by primary key") {
    try fixture.keychain.update(
        Fixture.item(fixture.nextAccount()), ["v_Data": .data(Data("rotated".utf8))], caller: fixture.caller)
}

// A lookup by primary key right after a change (an update of another item, not timed), which empties the
// engine's caches: what the first lookup of an item after any write pays (SQL, the attribute box and the secret).
benchmark("copyMatching by primary key, r_Data, first after a change") { state in
    try fixture.keychain.update(
        Fixture.item(fixture.nextAccount()), ["v_Data": .data(Data("rotated".utf8))], caller: fixture.caller)
    let query = Fixture.item(fixture.nextAccount(), ["r_Data": true])
    state.start()
    _ = try fixture.keychain.copyMatching(query, caller: fixture.caller)
    try state.end()
}

benchmark("delete by primary key") { state in
    // Only the delete is timed: the item it removes is added first, in another service.
    var query = Fixture.item("gone-\(UUID().uuidString)")
    query["svce"] = "bench.deleted"
    _ = try fixture.keychain.add(query.merging(["v_Data": .data(Data("s".utf8))]) { $1 }, caller: fixture.caller)
    state.start()
    try fixture.keychain.delete(query, caller: fixture.caller)
    try state.end()
}

/// The same calls through the `Security` module, in this process (no daemon serves `KEYCHAIN_VAULT`),
/// on a vault of its own with the same 1,000 items.
enum SecurityFixture {
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "kcfs-security-bench-\(getpid())"
    ).path

    static func query(_ service: String, _ account: String) -> [CFString: Any] {
        [kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: account]
    }

    /// Each item's query, and its query for the secret, made before any call is timed: as the floor's
    /// inputs are. Making one (`[CFString: Any] as CFDictionary`) is the app's own code, Foundation's cost and
    /// not the module's: about a sixth of a timed lookup when it was made inside it (BENCHMARKS.md).
    nonisolated(unsafe) static let queries: [CFDictionary] = (0..<Fixture.itemCount).map {
        query(Fixture.service, "account\($0)") as CFDictionary
    }
    nonisolated(unsafe) static let lookups: [CFDictionary] = (0..<Fixture.itemCount).map {
        var lookup = query(Fixture.service, "account\($0)")
        lookup[kSecReturnData] = true
        return lookup as CFDictionary
    }
    nonisolated(unsafe) static let rotation = [kSecValueData: Data("rotated".utf8)] as CFDictionary

    static func check(_ status: OSStatus, _ call: String) throws {
        guard status == errSecSuccess else { throw KeychainError(status, "\(call) returned \(status)") }
    }

    static func make() throws {
        setenv("KEYCHAIN_VAULT", directory, 1)
        for index in 0..<Fixture.itemCount {
            var item = query(Fixture.service, "account\(index)")
            item[kSecValueData] = Data("secret-\(index)".utf8)
            try check(SecItemAdd(item as CFDictionary, nil), "SecItemAdd")
        }
    }
}

try SecurityFixture.make()
defer { try? FileManager.default.removeItem(atPath: SecurityFixture.directory) }

benchmark("Security: SecItemAdd (new item)") { state in
    var item = SecurityFixture.query("bench.added", "new-\(UUID().uuidString)")
    item[kSecValueData] = Data("s".utf8)
    let made = item as CFDictionary
    state.start()
    try SecurityFixture.check(SecItemAdd(made, nil), "SecItemAdd")
    try state.end()
}

benchmark("Security: SecItemCopyMatching by primary key, kSecReturnData") {
    var result: CFTypeRef?
    try SecurityFixture.check(
        SecItemCopyMatching(SecurityFixture.lookups[fixture.nextIndex()], &result), "SecItemCopyMatching")
}

benchmark("Security: SecItemUpdate kSecValueData by primary key") {
    try SecurityFixture.check(
        SecItemUpdate(SecurityFixture.queries[fixture.nextIndex()], SecurityFixture.rotation), "SecItemUpdate")
}

benchmark("Security: SecItemDelete by primary key") { state in
    let query = SecurityFixture.query("bench.deleted", "gone-\(UUID().uuidString)")
    var item = query
    item[kSecValueData] = Data("s".utf8)
    try SecurityFixture.check(SecItemAdd(item as CFDictionary, nil), "SecItemAdd")
    let made = query as CFDictionary
    state.start()
    try SecurityFixture.check(SecItemDelete(made), "SecItemDelete")
    try state.end()
}

Benchmark.main()
