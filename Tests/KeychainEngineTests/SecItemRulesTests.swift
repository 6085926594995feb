import Foundation
import Synchronization
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// The genp rules of docs/reference/keychain-semantics.md §4–§6, the seeds' pitfalls among them.
@Suite struct SecItemRulesTests {
    let v: TestVault
    init() throws { v = try TestVault() }

    @Test func addThenReadBack() throws {
        #expect(try v.add(genp("svc", "alice", ["v_Data": data("s3cret")])) == nil)
        #expect(try v.copy(genp("svc", "alice", ["r_Data": true])) == data("s3cret"))
    }

    @Test func queryOnNonUniqueAttributeMissesWhileAddCollides() throws {
        _ = try v.add(genp("svc", "alice", ["gena": data("one")]))
        #expect(v.status { _ = try v.copy(genp("svc", "alice", ["gena": data("two")])) } == SecStatus.itemNotFound)
        #expect(v.status { _ = try v.add(genp("svc", "alice", ["gena": data("two")])) } == SecStatus.duplicateItem)
        #expect(v.status { _ = try v.add(genp("svc", "alice", ["labl": "other label"])) } == SecStatus.duplicateItem)
    }

    @Test func deleteWithoutLimitRemovesEveryMatch() throws {
        for account in ["a", "b", "c"] { _ = try v.add(genp("svc", account)) }
        _ = try v.add(genp("other", "a"))
        try v.delete(["class": "genp", "svce": "svc"])
        #expect(v.status { _ = try v.copy(["class": "genp", "svce": "svc"]) } == SecStatus.itemNotFound)
        #expect(v.status { _ = try v.copy(["class": "genp", "svce": "other"]) } == SecStatus.success)
        #expect(v.status { try v.delete(["class": "genp", "svce": "svc"]) } == SecStatus.itemNotFound)
    }

    /// Observers (the mount's kernel cache) learn exactly which items a delete removed.
    @Test func aDeleteNamesEveryItemItRemovedToObservers() throws {
        var added: Set<Data> = []
        for account in ["a", "b", "c"] {
            added.insert(try #require(try v.add(genp("svc", account, ["r_PersistentRef": true]))?.dataValue))
        }
        _ = try v.add(genp("other", "a"))
        let heard = Mutex<[Keychain.Change]>([])
        v.keychain.addChangeObserver { change in heard.withLock { $0.append(change) } }
        try v.delete(["class": "genp", "svce": "svc"])
        guard case .items(let changed) = try #require(heard.withLock { $0.last }) else {
            Issue.record("a delete is an item change"); return
        }
        #expect(changed.map(Set.init) == added)
    }

    /// A new secret alone is a change of secrets (the mount keeps the item's directory entry), also when the
    /// update restates attributes with the bytes they have (as `security add-generic-password -U` does); a
    /// change of any attribute, or of a certificate's data (its issuer and serial number name it), is a
    /// change of items.
    @Test func anUpdateSaysWhetherOnlySecretsChanged() throws {
        let ref = try #require(try v.add(genp("svc", "a", ["v_Data": data("1"), "r_PersistentRef": true]))?.dataValue)
        let heard = Mutex<[Keychain.Change]>([])
        v.keychain.addChangeObserver { change in heard.withLock { $0.append(change) } }
        try v.update(genp("svc", "a"), ["v_Data": data("2")])
        #expect(heard.withLock { $0.last } == .secrets(changed: [ref]))
        try v.update(genp("svc", "a"), ["svce": "svc", "acct": "a", "v_Data": data("2b")])
        #expect(heard.withLock { $0.last } == .secrets(changed: [ref]), "attributes restated as they are")
        try v.update(genp("svc", "a"), ["labl": "renamed label"])
        #expect(heard.withLock { $0.last } == .items(changed: [ref]), "an attribute")
        try v.update(genp("svc", "a"), ["v_Data": data("3"), "acct": "b"])
        #expect(heard.withLock { $0.last } == .items(changed: [ref]), "a secret and the name")
        let first = try TestCertificate(commonName: "First", serial: "01")
        let certificate = try #require(
            try v.add(["class": "cert", "v_Data": .data(first.der), "r_PersistentRef": true])?.dataValue)
        let second = try TestCertificate(commonName: "Second", serial: "02")
        try v.update(["class": "cert", "v_PersistentRef": .data(certificate)], ["v_Data": .data(second.der)])
        #expect(heard.withLock { $0.last } == .items(changed: [certificate]), "a certificate's data names it")
    }

    @Test func deleteAcceptsExactlyMatchLimitAll() throws {
        for account in ["a", "b"] { _ = try v.add(genp("svc", account)) }
        _ = try v.add(genp("kept", "a"))
        try v.delete(["class": "genp", "svce": "svc", "m_Limit": "m_LimitAll"])
        #expect(
            v.status { _ = try v.copy(["class": "genp", "svce": "svc"]) } == SecStatus.itemNotFound, "every match went")
        #expect(v.status { _ = try v.copy(["class": "genp", "svce": "kept"]) } == SecStatus.success)
        #expect(
            v.status { try v.delete(["class": "genp", "svce": "svc", "m_Limit": "m_LimitAll"]) }
                == SecStatus.itemNotFound)
    }

    @Test func plainDeleteLeavesSynchronizableItems() throws {
        _ = try v.add(genp("svc", "a"))
        _ = try v.add(genp("svc", "a", ["sync": true]))
        try v.delete(genp("svc", "a"))
        #expect(v.status { _ = try v.copy(genp("svc", "a")) } == SecStatus.itemNotFound)
        #expect(v.status { _ = try v.copy(genp("svc", "a", ["sync": true])) } == SecStatus.success)
        _ = try v.add(genp("svc", "a"))
        try v.delete(genp("svc", "a", ["sync": "syna"]))
        #expect(v.status { _ = try v.copy(genp("svc", "a", ["sync": "syna"])) } == SecStatus.itemNotFound)
    }

    @Test func synchronizableAnyMatchesBoth() throws {
        _ = try v.add(genp("svc", "a"))
        _ = try v.add(genp("svc", "a", ["sync": 1]))
        let all = try v.copy(genp("svc", "a", ["sync": "syna", "m_Limit": "m_LimitAll", "r_Attributes": true]))
        #expect(all?.arrayValue?.compactMap { $0.dictionaryValue?["sync"] } == [.number(0), .number(1)])
        let plain = try v.copy(genp("svc", "a", ["m_Limit": "m_LimitAll", "r_Attributes": true]))
        #expect(plain?.arrayValue?.count == 1)
    }

    @Test func matchKeysRefusedInUpdateDeleteAndAdd() throws {
        _ = try v.add(genp("svc", "a"))
        #expect(
            v.status { try v.update(genp("svc", "a", ["m_Limit": "m_LimitOne"]), ["labl": "x"]) } == SecStatus.param)
        #expect(
            v.status { try v.update(genp("svc", "a", ["m_Limit": "m_LimitAll"]), ["labl": "x"]) } == SecStatus.param)
        #expect(v.status { try v.delete(genp("svc", "a", ["m_Limit": "m_LimitOne"])) } == SecStatus.param)
        #expect(v.status { try v.delete(genp("svc", "a", ["m_Limit": 5])) } == SecStatus.param)
        #expect(
            v.status { try v.delete(genp("svc", "a", ["m_Limit": "m_LimitAll", "m_CaseInsensitive": true])) }
                == SecStatus.param)
        #expect(v.status { _ = try v.copy(genp("svc", "a")) } == SecStatus.success, "a refused delete deletes nothing")
        #expect(v.status { _ = try v.add(genp("svc", "b", ["m_Limit": "m_LimitOne"])) } == SecStatus.param)
        #expect(v.status { try v.update(genp("svc", "a", ["r_Data": true]), ["labl": "x"]) } == SecStatus.param)
        #expect(v.status { _ = try v.copy(genp("svc", "b")) } == SecStatus.itemNotFound, "nothing was added")
    }

    @Test func updateAttributesGoThroughAttributeLookup() throws {
        _ = try v.add(genp("svc", "a"))
        #expect(v.status { try v.update(genp("svc", "a"), ["class": "genp", "labl": "x"]) } == SecStatus.noSuchAttr)
        #expect(v.status { try v.update(genp("svc", "a"), ["r_Data": true]) } == SecStatus.noSuchAttr)
        #expect(v.status { try v.update(genp("svc", "a"), ["bogu": "x"]) } == SecStatus.noSuchAttr)
        #expect(v.status { try v.update(genp("svc", "a"), ["v_Data": "not data"]) } == SecStatus.param)
        #expect(v.status { try v.update(genp("svc", "a"), ["ggrp": "g"]) } == SecStatus.param)
        #expect(v.status { try v.update(genp("svc", "zz"), ["labl": "x"]) } == SecStatus.itemNotFound)
    }

    @Test func renamingAnAccountWorksAndACollisionChangesNothing() throws {
        _ = try v.add(genp("svc", "alice", ["v_Data": data("A")]))
        _ = try v.add(genp("svc", "bob", ["v_Data": data("B")]))
        let ref = try v.copy(genp("svc", "alice", ["r_PersistentRef": true]))
        try v.update(genp("svc", "alice"), ["acct": "carol"])
        #expect(try v.copy(genp("svc", "carol", ["r_Data": true])) == data("A"))
        #expect(try v.copy(genp("svc", "carol", ["r_PersistentRef": true])) == ref, "persistent refs survive updates")
        #expect(
            v.status { try v.update(genp("svc", "carol"), ["acct": "bob", "labl": "changed"]) }
                == SecStatus.duplicateItem)
        #expect(try v.copy(genp("svc", "carol", ["r_Data": true])) == data("A"))
        #expect(try v.copy(genp("svc", "bob", ["r_Attributes": true]))?.dictionaryValue?["labl"] == nil)
    }

    @Test func primaryKeyUpdateOfManyItemsRollsBackAsAWhole() throws {
        _ = try v.add(genp("svc", "a", ["labl": "L"]))
        _ = try v.add(genp("svc", "b", ["labl": "L"]))
        #expect(v.status { try v.update(["class": "genp", "labl": "L"], ["acct": "same"]) } == SecStatus.duplicateItem)
        #expect(v.status { _ = try v.copy(genp("svc", "a")) } == SecStatus.success)
        #expect(v.status { _ = try v.copy(genp("svc", "b")) } == SecStatus.success)
        #expect(v.status { _ = try v.copy(genp("svc", "same")) } == SecStatus.itemNotFound)
    }

    @Test func matchLimitDefaultsAndResultShapes() throws {
        _ = try v.add(genp("svc", "a", ["v_Data": data("1")]))
        _ = try v.add(genp("svc", "b"))
        let q: KeychainDictionary = ["class": "genp", "svce": "svc"]
        #expect(try v.copy(q.merging(["r_Data": true]) { $1 }) == data("1"), "default limit is one, insertion order")
        #expect(try v.copy(q) == nil, "no return key: existence only")
        #expect(
            try v.copy(q.merging(["r_Data": true, "m_Limit": 5]) { $1 })?.arrayValue == [data("1"), .data(Data())])
        let one = try v.copy(q.merging(["r_Attributes": true, "m_Limit": "m_LimitAll", "acct": "a"]) { $1 })
        #expect(one?.arrayValue?.count == 1, "limit all gives an array even for one hit")
        let both = try v.copy(genp("svc", "b", ["r_Attributes": true, "r_Data": true]))?.dictionaryValue
        #expect(both?["v_Data"] == nil, "an item without data has no v_Data")
        #expect(both?["acct"] == "b")
        let attrs = try v.copy(genp("svc", "a", ["r_Attributes": true]))!.dictionaryValue!
        #expect(attrs["class"] == nil)
        #expect(attrs["sync"] == .number(0) && attrs["tomb"] == .number(0))
        #expect(attrs["musr"] == .data(Data()) && attrs["pdmn"] == "ak" && attrs["agrp"] == "default")
        #expect(
            try v.copy(genp("svc", "a", ["r_Attributes": true, "r_Ref": true]))?.dictionaryValue?["class"] == "genp")
        #expect(try v.copy(genp("svc", "a", ["r_Ref": true])) == nil, "genp has no ref object")
    }

    @Test func returnedAttributesAreAValidQuery() throws {
        _ = try v.add(genp("svc", "a", ["labl": "L", "gena": data("g"), "invi": true]))
        var attrs = try v.copy(genp("svc", "a", ["r_Attributes": true]))!.dictionaryValue!
        #expect(attrs["invi"] == .number(1), "booleans come back as numbers")
        attrs["class"] = "genp"
        attrs["r_Data"] = true
        #expect(v.status { _ = try v.copy(attrs) } == SecStatus.success)
    }

    @Test func addReturnsWhatIsAsked() throws {
        #expect(try v.add(genp("svc", "a", ["r_Data": true])) == .data(Data()))
        let attrs = try v.add(genp("svc", "b", ["r_Attributes": true]))?.dictionaryValue
        #expect(attrs?["acct"] == "b" && attrs?["tomb"] == nil && attrs?["musr"] == nil)
        let ref = try v.add(genp("svc", "c", ["r_PersistentRef": true]))?.dataValue
        #expect(ref?.count == 20 && ref?.prefix(4) == Data("genp".utf8))
        #expect(try v.copy(["v_PersistentRef": .data(ref!), "r_Attributes": true])?.dictionaryValue?["acct"] == "c")
        #expect(v.status { _ = try v.copy(["v_PersistentRef": .data(ref!), "acct": "c"]) } == SecStatus.param)
        #expect(v.status { _ = try v.copy(["v_PersistentRef": .data(Data("genpshort".utf8))]) } == SecStatus.param)
    }

    @Test func datesAreSetByTheKeychain() throws {
        let past = Date(timeIntervalSinceReferenceDate: 0)
        let attrs = try v.add(genp("svc", "a", ["cdat": .date(past), "r_Attributes": true]))!.dictionaryValue!
        guard case .date(let cdat) = attrs["cdat"], case .date(let mdat) = attrs["mdat"] else {
            Issue.record("no dates"); return
        }
        #expect(cdat == mdat && cdat > past)
        for _ in 0..<3 { try v.update(genp("svc", "a"), ["labl": "x", "mdat": .date(past)]) }
        guard case .date(let later) = try v.copy(genp("svc", "a", ["r_Attributes": true]))?.dictionaryValue?["mdat"]
        else { return }
        #expect(later > mdat)
    }

    @Test func accessGroups() throws {
        let caller = Caller(accessGroups: ["TEAM.app", "TEAM.shared"])
        let attrs = try v.add(genp("svc", "a", ["r_Attributes": true]), as: caller)?.dictionaryValue
        #expect(attrs?["agrp"] == "TEAM.app", "default group is the caller's first")
        _ = try v.add(genp("svc", "b", ["agrp": "TEAM.shared"]), as: caller)
        #expect(
            v.status { _ = try v.add(genp("svc", "c", ["agrp": "OTHER"]), as: caller) } == SecStatus.missingEntitlement)
        #expect(
            v.status { _ = try v.copy(genp("svc", "b"), as: caller) } == SecStatus.success, "queries cover every group")
        #expect(
            v.status { _ = try v.copy(genp("svc", "b"), as: Caller(accessGroups: ["TEAM.app"])) }
                == SecStatus.itemNotFound)
        #expect(
            v.status {
                _ = try v.copy(genp("svc", "b", ["agrp": "TEAM.shared"]), as: Caller(accessGroups: ["TEAM.app"]))
            } == SecStatus.missingEntitlement)
        #expect(
            v.status { _ = try v.add(genp("svc", "d"), as: Caller(accessGroups: [])) } == SecStatus.missingEntitlement)
    }

    @Test func badDictionariesGetApplesCodes() throws {
        #expect(v.status { _ = try v.add(["svce": "s"]) } == SecStatus.param, "class missing")
        #expect(v.status { _ = try v.add(["class": "apls"]) } == SecStatus.noSuchClass)
        #expect(v.status { _ = try v.add(["class": 7]) } == SecStatus.param)
        #expect(v.status { _ = try v.add(genp("s", "a", ["atag": "x"])) } == SecStatus.noSuchAttr)
        #expect(v.status { _ = try v.add(genp("s", "a", ["clip": 1])) } == SecStatus.param)
        #expect(v.status { _ = try v.add(genp("s", "a", ["v_Data": "string"])) } == SecStatus.param)
        #expect(v.status { _ = try v.add(genp("s", "a", ["pdmn": "nope"])) } == SecStatus.param)
        #expect(v.status { _ = try v.add(genp("s", "a", ["cdat": "yesterday"])) } == SecStatus.param)
        #expect(v.status { _ = try v.add(genp("s", "a", ["ggrp": "g"])) } == SecStatus.missingEntitlement)
        #expect(v.status { _ = try v.add(genp("s", "a", ["xyz": 1])) } == SecStatus.param)
        #expect(v.status { _ = try v.copy(genp("s", "a", ["r_Data": 1])) } == SecStatus.param, "returns need booleans")
        #expect(v.status { _ = try v.copy(genp("s", "a", ["m_Limit": "lots"])) } == SecStatus.param)
        #expect(v.status { _ = try v.copy(genp("s", "a", ["m_Issuers": .array([])])) } == SecStatus.unimplemented)
        #expect(
            v.status { _ = try v.copy(genp("s", "a", ["m_CaseInsensitive": true])) } == SecStatus.itemNotFound,
            "ignored m_ key")
        #expect(v.status { _ = try v.copy(genp("s", "a", ["u_Bogus": true])) } == SecStatus.param)
        #expect(try v.keychain.itemCounts()["genp"] == 0, "nothing was stored")
    }

    @Test func matchingIsByteExactAndTypeBlind() throws {
        _ = try v.add(genp("svc", "Alice"))
        #expect(
            v.status { _ = try v.copy(genp("svc", "alice", ["m_CaseInsensitive": true])) } == SecStatus.itemNotFound)
        #expect(
            v.status { _ = try v.copy(["class": "genp", "svce": data("svc"), "acct": data("Alice")]) }
                == SecStatus.success)
        #expect(
            v.status { _ = try v.add(["class": "genp", "svce": data("svc"), "acct": data("Alice")]) }
                == SecStatus.duplicateItem)
        #expect(
            try v.copy(genp("svc", "Alice", ["r_Attributes": true]))?.dictionaryValue?["acct"] == "Alice",
            "string in, string out")
    }

    @Test func valueDataInAQueryIsNoFilter() throws {
        _ = try v.add(genp("svc", "a", ["v_Data": data("x")]))
        #expect(v.status { _ = try v.copy(genp("svc", "a", ["v_Data": data("y")])) } == SecStatus.success)
    }
}
