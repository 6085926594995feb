import Foundation
import KeychainFSEngine
import KeychainFSModel
import Synchronization
import Testing
import KeychainFSTestSupport

/// The caches behind the filesystem's fast paths: never stale, never a way around the lock or the
/// access groups.
@Suite struct CachingTests {
    @Test func generationalCacheForgetsOnANewGenerationAndStaysBounded() {
        let cache = GenerationalCache<Int, String>(capacity: 16)
        cache.store("a", for: 1, generation: 7)
        #expect(cache.value(1, generation: 7) == "a")
        #expect(cache.value(1, generation: 8) == nil, "another generation misses")
        cache.store("b", for: 2, generation: 8)
        #expect(
            cache.value(1, generation: 8) == nil && cache.value(2, generation: 8) == "b",
            "a new generation starts empty")
        for key in 0..<100 {
            cache.store("\(key)", for: key, generation: 8)
            #expect(cache.value(0, generation: 8) == "0" || key == 0, "a working set used all along stays")
        }
        let kept = (0..<100).filter { cache.value($0, generation: 8) != nil }
        #expect(kept.count <= 16 && kept.count >= 8, "bounded; at least the recent half stays")
        #expect(cache.value(99, generation: 8) == "99", "the newest entry is kept")
        cache.removeAll()
        #expect(cache.value(99, generation: 8) == nil)
    }

    /// However many entries come and go, the cache's tables stay the size of its capacity: the old eviction
    /// (from the front of one dictionary) left its hash table clustered and lookups slowed tenfold. How fast a
    /// lookup is stays a benchmark's question (bench/run: `ls -l` of 100,000 items), not a timed test's.
    /// A value worked out before a change and stored after the change emptied the cache (a lookup that ran
    /// across a lock) is dropped: it would otherwise stay in memory, unreachable, until the next store.
    @Test func aStoreFromBeforeAChangeIsDroppedAfterIt() {
        let cache = GenerationalCache<Int, String>(capacity: 16)
        cache.store("before", for: 1, generation: 4)
        cache.removeAll(olderThan: 5)  // the change: generation 4 -> 5
        cache.store("late", for: 2, generation: 4)
        #expect(cache.count == 0, "nothing of generation 4 is kept after the change")
        #expect(cache.value(2, generation: 4) == nil)
        cache.store("now", for: 3, generation: 5)
        #expect(cache.value(3, generation: 5) == "now")
        cache.removeAll()  // the view's own clearing leaves the floor where it is
        cache.store("again", for: 3, generation: 5)
        #expect(cache.value(3, generation: 5) == "again")
    }

    /// What a change drops is freed before the change returns when it is a few entries (what each write
    /// drops): waking the reaper's thread at every write cost the writer more than freeing them (measured).
    /// Thousands of entries (a lock of a mount that listed a big vault) are still freed off the caller's path.
    @Test func aFewDroppedEntriesAreFreedByTheChangeItself() async throws {
        final class Freed: Sendable { let count = Atomic(0) }
        final class Tracked: Sendable {
            let freed: Freed
            init(_ freed: Freed) { self.freed = freed }
            deinit { freed.count.add(1, ordering: .relaxed) }
        }
        let freed = Freed()
        let cache = GenerationalCache<Int, Tracked>(capacity: 4096)
        for key in 0..<3 { cache.store(Tracked(freed), for: key, generation: 1) }
        cache.removeAll(olderThan: 2)
        #expect(freed.count.load(ordering: .relaxed) == 3, "freed when the change returns")
        for key in 0..<1000 { cache.store(Tracked(freed), for: key, generation: 2) }
        cache.removeAll(olderThan: 3)
        let deadline = Date().addingTimeInterval(10)
        while freed.count.load(ordering: .relaxed) < 1003, Date() < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(freed.count.load(ordering: .relaxed) == 1003, "a large drop is freed too, in the background")
    }

    @Test func aFullCacheKeepsItsTablesTheSizeOfItsCapacity() {
        let cache = GenerationalCache<[UInt8], Int>(capacity: 16384)
        func key(_ i: Int) -> [UInt8] { Array("genp/svc0/acct\(i)".utf8) }
        for i in 0..<200_000 { cache.store(i, for: key(i), generation: 1) }
        #expect(cache.count <= 16384, "at most its capacity is kept (\(cache.count))")
        #expect(
            cache.reservedCapacity <= 4 * 16384,
            "its tables do not grow with the stores seen (\(cache.reservedCapacity))")
        #expect(cache.value(key(199_999), generation: 1) == 199_999, "the newest entry is found")
        #expect(
            (198_000..<200_000).allSatisfy { cache.value(key($0), generation: 1) == $0 },
            "the recent working set is whole")
    }

    /// A lookup's rows are remembered by its filter for one generation: the next lookup of the
    /// item reads no SQL. An add, an update, a delete and a lock each end that, and the lock and the caller's
    /// groups are checked on every lookup answered from it.
    @Test func theMatchesOfLookupsAreForgottenAtEveryChange() throws {
        let v = try TestVault()
        let lookup = genp("svc", "a", ["r_Data": true])
        #expect(v.status { _ = try v.copy(lookup) } == SecStatus.itemNotFound)
        #expect(v.keychain.recentMatches.count == 1, "a lookup that found nothing is remembered")
        _ = try v.add(genp("svc", "a", ["v_Data": data("A"), "pdmn": "ak"]))
        #expect(v.keychain.recentMatches.count == 0, "until an add")
        #expect(try v.copy(lookup) == data("A"), "which it finds")
        #expect(try v.copy(lookup) == data("A"), "then from what it found")
        #expect(v.keychain.recentMatches.count == 1)

        let stranger = Caller(accessGroups: ["other.group"])
        #expect(v.status { _ = try v.keychain.copyMatching(lookup, caller: stranger) } == SecStatus.itemNotFound)

        try v.update(genp("svc", "a"), ["v_Data": data("B")])
        #expect(try v.copy(lookup) == data("B"), "an update of the secret is seen at once")
        try v.update(genp("svc", "a"), ["acct": "renamed"])
        #expect(v.status { _ = try v.copy(lookup) } == SecStatus.itemNotFound, "so is a rename")
        #expect(try v.copy(genp("svc", "renamed", ["r_Data": true])) == data("B"))
        try v.update(genp("svc", "renamed"), ["acct": "a"])

        try v.keychain.setPasscode(Data("1234".utf8))
        #expect(try v.copy(lookup) == data("B"))
        #expect(try v.copy(lookup) == data("B"))
        v.keychain.lockDevice()
        #expect(v.status { _ = try v.copy(lookup) } == SecStatus.interactionNotAllowed, "the lock is never cached")
        try v.keychain.unlockDevice(passcode: Data("1234".utf8))
        #expect(try v.copy(lookup) == data("B"))
        try v.delete(genp("svc", "a"))
        #expect(v.status { _ = try v.copy(lookup) } == SecStatus.itemNotFound, "a delete is seen at once")
    }

    /// Lookups are remembered by the bytes they match, as the lookup columns are: "café" composed and
    /// decomposed (equal as Swift strings) are two accounts, each found again as itself.
    @Test func canonicallyEquivalentValuesStayTwoQueries() throws {
        let v = try TestVault()
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        _ = try v.add(genp("svc", composed, ["v_Data": data("nfc")]))
        _ = try v.add(genp("svc", decomposed, ["v_Data": data("nfd")]))
        for round in 1...2 {
            #expect(try v.copy(genp("svc", composed, ["r_Data": true])) == data("nfc"), "round \(round)")
            #expect(try v.copy(genp("svc", decomposed, ["r_Data": true])) == data("nfd"), "round \(round)")
        }
    }

    @Test func secretByPersistentReferenceFollowsTheLockAndTheGroups() throws {
        let v = try TestVault()
        let added = try v.add(genp("svc", "a", ["v_Data": data("s1"), "pdmn": "ak", "r_PersistentRef": true]))
        let ref = try #require(added?.dataValue)
        #expect(try v.keychain.read(.data, of: ref, caller: v.caller) == Data("s1".utf8), "first read: by query")
        #expect(try v.keychain.read(.data, of: ref, caller: v.caller) == Data("s1".utf8), "then from the row cache")
        try v.update(genp("svc", "a"), ["v_Data": data("s2")])
        #expect(try v.keychain.read(.data, of: ref, caller: v.caller) == Data("s2".utf8), "an update is seen at once")

        let stranger = Caller(accessGroups: ["other.group"])
        #expect(v.status { _ = try v.keychain.read(.data, of: ref, caller: stranger) } == SecStatus.itemNotFound)

        try v.keychain.setPasscode(Data("1234".utf8))
        _ = try v.keychain.read(.data, of: ref, caller: v.caller)  // cached again
        v.keychain.lockDevice()
        #expect(
            v.status { _ = try v.keychain.read(.data, of: ref, caller: v.caller) } == SecStatus.interactionNotAllowed)
        #expect(
            v.status { _ = try v.keychain.read(.data, of: Data("junk".utf8), caller: v.caller) } != SecStatus.success)
    }

    /// An add keeps its new row in the row cache with the attributes it sealed, so the item's first
    /// lookup decrypts no attribute box. What that lookup answers must be exactly what decrypting gives: the
    /// same lookups after another change (which empties the cache) answer the same, for every class and
    /// kind of value.
    @Test func anAddsKeptRowAnswersAsDecryptingIt() throws {
        let v = try TestVault()
        let cert = try TestCertificate(commonName: "kept")
        let adds: [KeychainDictionary] = [
            genp(
                "caf\u{E9} ☕️", "acct",
                [
                    "v_Data": data("s"), "labl": "L\u{301}", "gena": .data(Data([0, 0xff])), "crtr": 1_234,
                    "type": 42, "invi": true, "nega": false, "desc": "", "icmt": "comment",
                ]),
            [
                "class": "inet", "srvr": "example.org", "acct": "me", "port": 8443, "ptcl": "htps", "path": "/p",
                "sdmn": "realm", "atyp": "dflt", "v_Data": data("pw"),
            ],
            ["class": "keys", "kcls": 1, "atag": .data(Data("tag".utf8)), "v_Data": .data(cert.privateKeyX963)],
            ["class": "cert", "v_Data": .data(cert.der)],
        ]
        var queries: [KeychainDictionary] = []
        var fromTheAdds: [KeychainValue?] = []
        for add in adds {
            var added = add
            added["r_PersistentRef"] = true
            let reference = try #require(try v.add(added)?.dataValue)
            let query: KeychainDictionary = [
                "class": add["class"]!, "v_PersistentRef": .data(reference), "r_Attributes": true, "r_Data": true,
            ]
            queries.append(query)
            fromTheAdds.append(try v.copy(query))  // at once: the next add empties the cache
        }
        _ = try v.add(genp("another", "change"))
        let decrypted = try queries.map { try v.copy($0) }
        #expect(fromTheAdds == decrypted)
    }
}
