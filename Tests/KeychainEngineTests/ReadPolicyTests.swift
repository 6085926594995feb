import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// The one read policy (``Keychain/read(_:of:caller:options:)``) that the filesystem's files and the
/// Security module follow: the lock, withheld secrets, the identity join.
@Suite struct ReadPolicyTests {
    let v: TestVault
    init() throws { v = try TestVault() }

    @Test func aKeyThatIsNotExtractableKeepsItsBytes() throws {
        let cert = try TestCertificate(commonName: "withheld")
        let kept = try #require(
            try v.add([
                "class": "keys", "kcls": 1, "atag": "kept", "extr": false, "v_Data": .data(cert.privateKeyX963),
                "r_PersistentRef": true,
            ])?.dataValue)
        #expect(v.status { _ = try v.keychain.read(.data, of: kept, caller: v.caller) } == SecStatus.dataNotAvailable)
        #expect(
            v.status { _ = try v.keychain.read(.data, of: kept, caller: v.caller) } == SecStatus.dataNotAvailable,
            "from the row cache too")
        // Stored attributes as the engine keeps them (booleans as numbers).
        #expect(Keychain.withholdsSecret(Schema.key, ["kcls": .number(1), "extr": .number(0)]))
        #expect(!Keychain.withholdsSecret(Schema.key, ["kcls": .number(1), "extr": .number(1)]))
        #expect(
            Keychain.withholdsSecret(Schema.key, ["kcls": .number(1), "tkid": "com.apple.setoken"]),
            "a token's private key, whatever extr says")
        #expect(
            !Keychain.withholdsSecret(Schema.key, ["kcls": .number(0), "tkid": "com.apple.setoken"]),
            "its public key is data")
    }

    /// `stat` of a value learns its size from the sealed secret's length instead of decrypting
    /// it; the answer and every refusal must be the read's own (lock, groups, withheld, access control).
    @Test func aSecretsLengthIsTheReadsLengthUnderTheSamePolicy() throws {
        var references: [Data] = []
        for (account, secret) in [("empty", ""), ("short", "s"), ("page", String(repeating: "x", count: 4097))] {
            references.append(
                try #require(
                    try v.add(genp("svc", account, ["v_Data": data(secret), "r_PersistentRef": true]))?.dataValue))
        }
        references.append(try #require(try v.add(genp("svc", "nodata", ["r_PersistentRef": true]))?.dataValue))
        for round in ["by SQL", "from the row cache"] {
            for reference in references {
                #expect(
                    try v.keychain.length(.data, of: reference, caller: v.caller)
                        == v.keychain.read(.data, of: reference, caller: v.caller).count, "\(round)")
            }
        }
        let stranger = Caller(accessGroups: ["other.group"])
        #expect(
            v.status { _ = try v.keychain.length(.data, of: references[1], caller: stranger) }
                == SecStatus.itemNotFound)
        let kept = try #require(
            try v.add([
                "class": "keys", "kcls": 1, "atag": "kept", "extr": false, "v_Data": data("k"),
                "r_PersistentRef": true,
            ])?.dataValue)
        #expect(v.status { _ = try v.keychain.length(.data, of: kept, caller: v.caller) } == SecStatus.dataNotAvailable)
        try v.keychain.setPasscode(Data("1234".utf8))
        let locked = try #require(
            try v.add(genp("svc", "ak", ["v_Data": data("a"), "pdmn": "ak", "r_PersistentRef": true]))?.dataValue)
        #expect(try v.keychain.length(.data, of: locked, caller: v.caller) == 1)
        v.keychain.lockDevice()
        #expect(
            v.status { _ = try v.keychain.length(.data, of: locked, caller: v.caller) }
                == SecStatus.interactionNotAllowed)
    }

    @Test func anIdentityReadsAsItsCertificateAndItsKeyThroughTheJoin() throws {
        let cert = try TestCertificate(commonName: "Alice")
        _ = try v.add(["class": "cert", "v_Data": .data(cert.der)])
        _ = try v.add(["class": "keys", "kcls": 1, "atag": "alice", "v_Data": .data(cert.privateKeyX963)])
        let identity = try #require(try v.copy(["class": "idnt", "r_PersistentRef": true])?.dataValue)
        #expect(try v.keychain.read(.data, of: identity, caller: v.caller) == cert.der)
        #expect(try v.keychain.read(.identityKey, of: identity, caller: v.caller) == cert.privateKeyX963)
        #expect(try v.keychain.length(.data, of: identity, caller: v.caller) == cert.der.count)
        #expect(try v.keychain.length(.identityKey, of: identity, caller: v.caller) == cert.privateKeyX963.count)
        try v.update(["class": "keys", "atag": "alice"], ["extr": false])
        #expect(
            v.status { _ = try v.keychain.read(.identityKey, of: identity, caller: v.caller) }
                == SecStatus.dataNotAvailable,
            "the key's own rule holds through the join")
        #expect(
            v.status { _ = try v.keychain.length(.identityKey, of: identity, caller: v.caller) }
                == SecStatus.dataNotAvailable,
            "and so does its length")
    }
}
