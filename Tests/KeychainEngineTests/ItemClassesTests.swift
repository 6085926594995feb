import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// inet, keys, cert and idnt (docs/reference/keychain-semantics.md §2.4–§2.6, §8; docs/item-classes.md).
@Suite struct ItemClassesTests {
    let v: TestVault
    init() throws { v = try TestVault() }

    func inet(_ server: String, _ account: String, _ extra: KeychainDictionary = [:]) -> KeychainDictionary {
        ["class": "inet", "srvr": .string(server), "acct": .string(account)].merging(extra) { $1 }
    }

    @Test func internetPasswordsAreUniqueOnTheirWholeKey() throws {
        _ = try v.add(inet("example.com", "alice", ["port": 443, "ptcl": "htps", "v_Data": data("p1")]))
        _ = try v.add(inet("example.com", "alice", ["port": 8443, "ptcl": "htps", "v_Data": data("p2")]))
        #expect(
            v.status { _ = try v.add(inet("example.com", "alice", ["port": 443, "ptcl": "htps", "labl": "other"])) }
                == SecStatus.duplicateItem)
        for (code, value) in [("sdmn", "realm"), ("atyp", "form"), ("path", "/x"), ("ptcl", "http")]
            as [(String, KeychainValue)]
        {
            let base: KeychainDictionary = ["port": 443, "ptcl": "htps"]
            #expect(
                v.status { _ = try v.add(inet("example.com", "alice", base.merging([code: value]) { $1 })) } == 0,
                "differs in \(code)")
        }
        #expect(try v.copy(inet("example.com", "alice", ["port": 8443, "r_Data": true])) == data("p2"))
        let attrs = try v.copy(inet("example.com", "alice", ["port": 443, "ptcl": "htps", "r_Attributes": true]))?
            .dictionaryValue
        #expect(
            attrs?["port"] == .number(443) && attrs?["ptcl"] == "htps" && attrs?["sdmn"] == "" && attrs?["path"] == "")
        let plain = try v.add(inet("plain.example", "bob", ["r_Attributes": true]))?.dictionaryValue
        #expect(
            plain?["ptcl"] == .number(0) && plain?["port"] == .number(0) && plain?["atyp"] == "",
            "defaults are 0 and empty")
        #expect(
            v.status { try v.update(inet("example.com", "alice", ["port": 8443]), ["port": 9000]) } == 0, "a free port")
        #expect(
            v.status { try v.update(inet("example.com", "alice", ["port": 9000]), ["port": 443]) }
                == SecStatus.duplicateItem)
        #expect(
            try v.copy(inet("example.com", "alice", ["port": 9000, "r_Data": true])) == data("p2"),
            "the collision changed nothing")
        try v.delete(["class": "inet", "srvr": "example.com"])
        #expect(v.status { _ = try v.copy(["class": "inet", "srvr": "example.com"]) } == SecStatus.itemNotFound)
    }

    @Test func keysFoundByApplicationTag() throws {
        let cert = try TestCertificate(commonName: "key test")
        let tag = KeychainValue.data(Data("com.example.keys.signing".utf8))
        let added = try v.add([
            "class": "keys", "kcls": "1", "type": "73", "bsiz": 256, "atag": tag, "v_Data": .data(cert.privateKeyX963),
            "r_Attributes": true,
        ])?.dictionaryValue
        #expect(
            added?["kcls"] == .number(1) && added?["type"] == .number(73), "key class and type come back as numbers")
        #expect(added?["klbl"] == .data(cert.publicKeyHash), "the application label is the SHA-1 of the public key")
        #expect(added?["sdat"] == .date(Date(timeIntervalSinceReferenceDate: 0)) && added?["crtr"] == .number(0))
        #expect(try v.copy(["class": "keys", "atag": tag, "r_Data": true]) == .data(cert.privateKeyX963))
        #expect(
            v.status {
                _ = try v.add([
                    "class": "keys", "kcls": 1, "type": 73, "bsiz": 256, "atag": tag,
                    "v_Data": .data(cert.privateKeyX963),
                ])
            }
                == SecStatus.duplicateItem)
        let pub = try v.add([
            "class": "keys", "kcls": 0, "type": 73, "bsiz": 256, "atag": tag, "v_Data": .data(cert.publicKeyX963),
            "r_Attributes": true,
        ])
        #expect(pub?.dictionaryValue?["klbl"] == .data(cert.publicKeyHash), "the public half has the same label")
        #expect(try v.copy(["class": "keys", "atag": tag, "m_Limit": "m_LimitAll"]) == nil)
        #expect(
            try v.copy(["class": "keys", "atag": tag, "m_Limit": "m_LimitAll", "r_Attributes": true])?.arrayValue?.count
                == 2)
        #expect(try v.copy(["class": "keys", "atag": tag, "kcls": "0", "r_Data": true]) == .data(cert.publicKeyX963))
    }

    @Test func certificatesDeriveTheirAttributesFromTheDER() throws {
        let cert = try TestCertificate(commonName: "Mouse CA", serial: "00FF10")
        let attrs = try v.add(["class": "cert", "v_Data": .data(cert.der), "r_Attributes": true])?.dictionaryValue
        #expect(attrs?["labl"] == "Mouse CA", "the default label is the subject summary")
        #expect(attrs?["slnr"] == .data(Data(hex: "00ff10")))
        #expect(attrs?["pkhh"] == .data(cert.publicKeyHash))
        #expect(attrs?["pdmn"] == "dk", "certificates default to kSecAttrAccessibleAlways")
        #expect(attrs?["ctyp"] == .number(3) && attrs?["cenc"] == .number(3))
        guard case .data(let issuer)? = attrs?["issr"], case .data(let subject)? = attrs?["subj"] else {
            Issue.record("no names"); return
        }
        #expect(issuer == subject && issuer.first == 0x31, "a Name's content octets: its RDN SETs")
        #expect(issuer.range(of: Data("Mouse CA".utf8)) != nil)
        guard case .data(let skid)? = attrs?["skid"] else { Issue.record("no subject key id"); return }
        #expect(skid.count == 20)
        #expect(
            v.status { _ = try v.add(["class": "cert", "v_Data": .data(cert.der), "labl": "another label"]) }
                == SecStatus.duplicateItem)
        #expect(
            try v.copy(["class": "cert", "issr": .data(issuer), "slnr": .data(Data(hex: "00ff10")), "r_Data": true])
                == .data(cert.der))
    }

    @Test func badCertificatesAndErroneousAttributesFailLoudly() throws {
        #expect(v.status { _ = try v.add(["class": "cert", "v_Data": data("not a certificate")]) } == SecStatus.param)
        let cert = try TestCertificate(commonName: "tagged")
        #expect(
            v.status { _ = try v.add(["class": "cert", "v_Data": .data(cert.der), "atag": "x"]) }
                == SecStatus.noSuchAttr,
            "kSecAttrApplicationTag on a certificate (seed 004 (docs/sources.md))")
        #expect(v.status { _ = try v.copy(["class": "cert", "atag": "x"]) } == SecStatus.noSuchAttr)
        #expect(v.status { _ = try v.add(["class": "genp", "srvr": "x"]) } == SecStatus.noSuchAttr)
        #expect(try v.keychain.itemCounts().values.reduce(0, +) == 0, "nothing stored")
    }

    @Test func identitiesAreTheJoinOfCertificateAndPrivateKey() throws {
        let cert = try TestCertificate(commonName: "Alice")
        _ = try v.add(["class": "cert", "v_Data": .data(cert.der)])
        #expect(v.status { _ = try v.copy(["class": "idnt"]) } == SecStatus.itemNotFound, "no key yet")
        _ = try v.add([
            "class": "keys", "kcls": 1, "atag": "alice", "v_Data": .data(cert.privateKeyX963), "labl": "key label",
        ])
        let identity = try v.copy(["class": "idnt", "r_Attributes": true, "r_PersistentRef": true])?.dictionaryValue
        #expect(identity?["labl"] == "Alice", "certificate values win")
        #expect(identity?["atag"] == "alice" && identity?["kcls"] == .number(1), "key attributes are there too")
        #expect(identity?["v_PersistentRef"]?.dataValue?.prefix(4) == Data("idnt".utf8))
        #expect(try v.copy(["class": "idnt", "labl": "Alice", "r_Data": true]) == .data(cert.der))
        #expect(v.status { _ = try v.copy(["class": "idnt", "labl": "Bob"]) } == SecStatus.itemNotFound)
        try v.update(["class": "idnt", "labl": "Alice"], ["labl": "Alice 2"])
        #expect(try v.copy(["class": "cert", "r_Attributes": true])?.dictionaryValue?["labl"] == "Alice 2")
        #expect(try v.copy(["class": "keys", "r_Attributes": true])?.dictionaryValue?["labl"] == "Alice 2")
        try v.delete(["class": "keys", "atag": "alice"])
        #expect(
            v.status { _ = try v.copy(["class": "idnt"]) } == SecStatus.itemNotFound,
            "deleting the key ends the identity")
        _ = try v.add(["class": "keys", "kcls": 1, "atag": "alice", "v_Data": .data(cert.privateKeyX963)])
        try v.delete(["class": "idnt"])
        #expect(try v.keychain.itemCounts() == ["genp": 0, "inet": 0, "cert": 0, "keys": 0], "both halves deleted")
        #expect(v.status { _ = try v.add(["class": "idnt", "labl": "x"]) } == SecStatus.param)
    }

    /// An identity is added in one transaction: a key that cannot be stored takes its certificate with it,
    /// a certificate already there is errSecDuplicateItem with nothing added, a key already there is kept.
    @Test func anIdentityIsAddedWholeOrNotAtAll() throws {
        let cert = try TestCertificate(commonName: "Whole")
        let certificate: KeychainDictionary = ["class": "cert", "v_Data": .data(cert.der)]
        let key: KeychainDictionary = [
            "class": "keys", "kcls": 1, "atag": "whole", "v_Data": .data(cert.privateKeyX963),
        ]
        // WhenPasscodeSet needs a passcode, which this device has not: the key fails after the certificate was prepared.
        let status = v.status {
            try v.keychain.addIdentity(
                certificate: certificate, key: key.merging(["pdmn": "akpu"]) { $1 }, caller: v.caller)
        }
        #expect(status == SecStatus.authFailed)
        #expect(try v.keychain.itemCounts() == ["genp": 0, "inet": 0, "cert": 0, "keys": 0], "nothing half-added")
        try v.keychain.addIdentity(certificate: certificate, key: key, caller: v.caller)
        #expect(try v.copy(["class": "idnt", "r_Data": true]) == .data(cert.der))
        #expect(
            v.status { try v.keychain.addIdentity(certificate: certificate, key: key, caller: v.caller) }
                == SecStatus.duplicateItem)
        try v.delete(["class": "cert"])
        try v.keychain.addIdentity(certificate: certificate, key: key, caller: v.caller)
        #expect(
            try v.keychain.itemCounts() == ["genp": 0, "inet": 0, "cert": 1, "keys": 1],
            "the key already there is kept, not doubled")
    }

    @Test func theLockAppliesToEveryClass() throws {
        let cert = try TestCertificate(commonName: "Locked")
        _ = try v.add(genp("s", "a", ["v_Data": data("g")]))
        _ = try v.add(inet("example.com", "a", ["v_Data": data("i")]))
        _ = try v.add(["class": "keys", "kcls": 1, "atag": "t", "v_Data": .data(cert.privateKeyX963)])
        _ = try v.add(["class": "cert", "v_Data": .data(cert.der), "pdmn": "ak"])
        try v.keychain.setPasscode(Data("1234".utf8))
        v.keychain.lockDevice()
        for cls in ["genp", "inet", "keys", "cert", "idnt"] {
            #expect(
                v.status { _ = try v.copy(["class": .string(cls), "r_Data": true]) } == SecStatus.interactionNotAllowed,
                "\(cls)")
        }
        try v.keychain.unlockDevice(passcode: Data("1234".utf8))
        for cls in ["genp", "inet", "keys", "cert", "idnt"] {
            #expect(v.status { _ = try v.copy(["class": .string(cls), "r_Data": true]) } == 0, "\(cls)")
        }
    }
}
