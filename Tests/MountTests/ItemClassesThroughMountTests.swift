import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// inet, keys, cert and idnt through the mount (docs/item-classes.md).
@Suite struct ItemClassesThroughMountTests {
    let m: MountedVault
    init() throws { m = try MountedVault() }

    func add(_ query: KeychainDictionary) throws {
        _ = try m.control.send(ControlRequest(.itemAdd, ["query": .dictionary(query)])).check()
    }

    func delete(_ query: KeychainDictionary) throws {
        _ = try m.control.send(ControlRequest(.itemDelete, ["query": .dictionary(query)])).check()
    }

    @Test func internetPasswordsWithQualifiers() throws {
        try add([
            "class": "inet", "srvr": "example.com", "acct": "alice", "port": 8443, "ptcl": "htps",
            "v_Data": .data(Data("pw".utf8)),
        ])
        let item = m.path("inet/example.com/alice;port=8443;ptcl=htps")
        #expect(FS.text(item + "/value") == "pw")
        #expect(FS.xattrText(item, "user.kSecAttrProtocol") == "kSecAttrProtocolHTTPS")
        #expect(FS.xattrText(item, "user.kSecAttrPort") == "8443")
        #expect(FS.mkdir(m.path("inet/example.com/alice;port=443;ptcl=htps")) == 0, "differs only in port: coexists")
        #expect(
            FS.setxattr(
                m.path("inet/example.com/alice;port=443;ptcl=htps"), "user.kSecAttrAuthenticationType",
                "kSecAttrAuthenticationTypeHTMLForm") == 0)
        #expect(
            FS.list(m.path("inet/example.com"))
                == .success(["alice;atyp=form;port=443;ptcl=htps", "alice;port=8443;ptcl=htps"]))
        #expect(FS.mkdir(m.path("inet/example.com/bob;ptcl=0443")) == EINVAL, "not canonical")
        #expect(FS.setxattr(item, "user.kSecAttrApplicationTag", "x") == ENOTSUP, "not an inet attribute")
    }

    @Test func keysAppearByTagAndClass() throws {
        let cert = try TestCertificate(commonName: "Key owner")
        try add([
            "class": "keys", "kcls": "1", "type": "73", "bsiz": 256, "atag": .data(Data("com.example.signing".utf8)),
            "v_Data": .data(cert.privateKeyX963),
        ])
        let key = m.path("keys/com.example.signing/private")
        #expect(FS.read(key + "/value") == .success(cert.privateKeyX963))
        #expect(FS.xattrText(key, "user.kSecAttrKeyClass") == "kSecAttrKeyClassPrivate")
        #expect(FS.xattrText(key, "user.kSecAttrKeyType") == "kSecAttrKeyTypeECSECPrimeRandom")
        #expect(FS.getxattr(key, "user.kSecAttrApplicationLabel") == .success(cert.publicKeyHash))
        // A second private key under the same tag: both get their value-describing qualifiers.
        try add([
            "class": "keys", "kcls": 1, "type": 42, "bsiz": 2048, "atag": "com.example.signing",
            "v_Data": .data(Data("rsa".utf8)),
        ])
        let listed = try FS.list(m.path("keys/com.example.signing")).get()
        #expect(listed.count == 2 && listed.allSatisfy { $0.hasPrefix("private;") }, "\(listed)")
        #expect(FS.text(key + "/value") == nil, "the short name is ambiguous now")
        let rsa = try #require(listed.first { $0.contains("type=42") })
        #expect(FS.text(m.path("keys/com.example.signing/\(rsa)/value")) == "rsa")
    }

    @Test func nonExtractableKeysKeepTheirAttributesButNotTheirValue() throws {
        try add([
            "class": "keys", "kcls": 2, "atag": "vault-key", "extr": false,
            "v_Data": .data(Data(repeating: 7, count: 32)),
        ])
        let key = m.path("keys/vault-key/symmetric")
        #expect(FS.read(key + "/value").errno == EPERM)
        #expect(FS.xattrText(key, "user.kSecAttrIsExtractable") == "0")
        #expect(FS.setxattr(key, "user.kSecAttrIsExtractable", "1") == 0)
        #expect(FS.read(key + "/value") == .success(Data(repeating: 7, count: 32)))
    }

    @Test func certificatesAndTheIdentitiesTheyForm() throws {
        let cert = try TestCertificate(commonName: "Alice Example", serial: "5EED01")
        try add(["class": "cert", "v_Data": .data(cert.der)])
        let certificate = m.path("cert/Alice Example/\(cert.serialHex)")
        #expect(FS.read(certificate + "/value") == .success(cert.der))
        #expect(FS.getxattr(certificate, "user.kSecAttrSerialNumber") == .success(Data(hex: cert.serialHex)))
        let issuer = try FS.getxattr(certificate, "user.kSecAttrIssuer").get()
        #expect(issuer.range(of: Data("Alice Example".utf8)) != nil)
        #expect(FS.xattrText(certificate, "user.kSecAttrAccessible") == "kSecAttrAccessibleAlways")
        #expect(FS.list(m.path("idnt")) == .success([]), "no private key yet")

        try add(["class": "keys", "kcls": 1, "atag": "alice", "v_Data": .data(cert.privateKeyX963)])
        let identity = m.path("idnt/Alice Example/\(cert.serialHex)")
        #expect(FS.list(identity) == .success(["certificate", "key"]))
        #expect(FS.read(identity + "/certificate") == .success(cert.der))
        #expect(FS.read(identity + "/key") == .success(cert.privateKeyX963))
        #expect(FS.xattrText(identity, "user.kSecAttrApplicationTag") == "alice")
        #expect(FS.write(identity + "/certificate", "x") == EROFS, "the join is read-only")
        #expect(FS.mkdir(m.path("idnt/Other")) == EROFS)

        try delete(["class": "keys", "atag": "alice"])
        #expect(m.wait(3) { FS.list(m.path("idnt")) == .success([]) }, "deleting the key ends the identity")
        #expect(FS.read(certificate + "/value") == .success(cert.der))
    }

    @Test func aCertificateWrittenToValue() throws {
        let cert = try TestCertificate(commonName: "Written", serial: "ABCD")
        #expect(FS.mkdir(m.path("cert/Written")) == 0)
        #expect(FS.mkdir(m.path("cert/Written/abcd")) == 0)
        #expect(FS.write(m.path("cert/Written/abcd/value"), cert.der) == 0)
        // The DER decides: 0xABCD has its high bit set, so its INTEGER content (the serial) is 00 AB CD.
        let item = m.path("cert/Written/00abcd")
        #expect(m.wait(3) { FS.list(m.path("cert/Written")) == .success(["00abcd"]) })
        #expect(FS.getxattr(item, "user.kSecAttrPublicKeyHash") == .success(cert.publicKeyHash))
        #expect(FS.write(item + "/value", "not DER") == EINVAL, "errSecParam, nothing stored")
        #expect(FS.read(item + "/value") == .success(cert.der))
        #expect(FS.mkdir(m.path("cert/Written/ABCD")) == EINVAL, "serials are lowercase hex")
    }

    @Test func theLockAppliesToOneItemOfEachClass() throws {
        let cert = try TestCertificate(commonName: "Locked")
        try add(["class": "genp", "svce": "s", "acct": "a", "v_Data": .data(Data("g".utf8))])
        try add(["class": "inet", "srvr": "example.com", "acct": "a", "v_Data": .data(Data("i".utf8))])
        try add(["class": "keys", "kcls": 1, "atag": "t", "v_Data": .data(cert.privateKeyX963)])
        try add(["class": "cert", "v_Data": .data(cert.der), "pdmn": "ak"])
        let files = [
            "genp/s/a/value", "inet/example.com/a/value", "keys/t/private/value", "cert/Locked/\(cert.serialHex)/value",
            "idnt/Locked/\(cert.serialHex)/key",
        ]
        for file in files { #expect(FS.read(m.path(file)).errno == 0, "\(file)") }
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        for file in files { #expect(FS.read(m.path(file)).errno == EACCES, "\(file)") }
        try expectSuccess(m.device("unlock", passcode: "1234"))
        for file in files { #expect(FS.read(m.path(file)).errno == 0, "\(file)") }
    }
}

/// Dates that names cannot spell in ISO 8601 with milliseconds still give names that resolve; dates
/// outside years 1–9999 or not finite are errSecParam.
@Suite struct DateNamingTests {
    let m: MountedVault
    init() throws { m = try MountedVault() }

    func addKey(startingAt seconds: Double, tag: String) throws -> KeychainValue? {
        try m.control.send(
            ControlRequest(
                .itemAdd,
                [
                    "query": .dictionary([
                        "class": "keys", "kcls": 2, "atag": .string(tag),
                        "sdat": .date(Date(timeIntervalSinceReferenceDate: seconds)),
                        "v_Data": .data(Data("k".utf8)),
                    ])
                ])
        ).check()
    }

    @Test func everyListedNameResolves() throws {
        for (tag, seconds) in [("sub-ms", 0.0004), ("ms", 0.5), ("old", -6.3e10), ("late", 2.5e11)] {
            _ = try addKey(startingAt: seconds, tag: tag)
            let names = try FS.list(m.path("keys/\(tag)")).get()
            #expect(names.count == 1, "\(tag)")
            for name in names {
                let item = m.path("keys/\(tag)/\(name)")
                #expect(FS.inode(item) != nil, "stat \(name)")
                #expect(FS.text(item + "/value") == "k", "cat \(name)")
                #expect(FS.getxattr(item, "user.kSecAttrStartDate").errno == 0, "getfattr \(name)")
                #expect(FS.rmdir(item) == 0, "rmdir \(name)")
            }
        }
        #expect(FS.list(m.path("keys/sub-ms")) == .success([]), "removed by its listed name")
    }

    @Test func datesOutsideTheRangeAreRefused() throws {
        for seconds in [Double.nan, .infinity, -.infinity, 1e18, -1e12] {
            let error = #expect(throws: KeychainError.self, "\(seconds)") {
                _ = try addKey(startingAt: seconds, tag: "bad")
            }
            #expect(error?.status == SecStatus.param, "\(seconds)")
        }
        #expect(FS.list(m.path("keys")) == .success([]), "nothing was stored")
        #expect(FS.mkdir(m.path("keys/t")) == 0)
        #expect(FS.mkdir(m.path("keys/t/symmetric;sdat=nan")) == EINVAL)
        #expect(
            FS.mkdir(m.path("keys/t/symmetric;sdat=0.5")) == EINVAL,
            "0.5 s has an exact ISO spelling, which is the only one")
        #expect(FS.mkdir(m.path("keys/t/symmetric;sdat=0.0004")) == 0)
    }
}
