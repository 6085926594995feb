import Foundation
import KeychainEngine
import KeychainModel
import Testing

/// The caches behind the filesystem's fast paths: never stale, never a way around the lock or the
/// access groups.
@Suite struct CachingTests {
    @Test func generationalCacheForgetsOnANewGenerationAndStaysBounded() {
        let cache = GenerationalCache<Int, String>(capacity: 16)
        cache.store("a", for: 1, generation: 7)
        #expect(cache.value(1, generation: 7) == "a")
        #expect(cache.value(1, generation: 8) == nil, "another generation misses")
        cache.store("b", for: 2, generation: 8)
        #expect(cache.value(1, generation: 8) == nil && cache.value(2, generation: 8) == "b", "a new generation starts empty")
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

    /// Lookups cost the same however many entries came and went (the old eviction clustered its hash table).
    @Test func aFullCacheStaysFastToSearch() {
        let cache = GenerationalCache<[UInt8], Int>(capacity: 16384)
        func key(_ i: Int) -> [UInt8] { Array("genp/svc0/acct\(i)".utf8) }
        func timeLookups(from start: Int) -> Duration {
            ContinuousClock().measure { for i in start..<(start + 2000) { _ = cache.value(key(i), generation: 1) } }
        }
        for i in 0..<16384 { cache.store(i, for: key(i), generation: 1) }
        let early = timeLookups(from: 14000)
        for i in 16384..<200_000 { cache.store(i, for: key(i), generation: 1) }
        let late = timeLookups(from: 198_000)
        #expect(late < early * 4 + .milliseconds(20), "early \(early), after 200,000 stores \(late)")
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
        #expect(v.status { _ = try v.keychain.read(.data, of: ref, caller: v.caller) } == SecStatus.interactionNotAllowed)
        #expect(v.status { _ = try v.keychain.read(.data, of: Data("junk".utf8), caller: v.caller) } != SecStatus.success)
    }
}
