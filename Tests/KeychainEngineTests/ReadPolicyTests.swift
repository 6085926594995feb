import Foundation
import KeychainEngine
import KeychainModel
import Testing
import TestSupport

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

    @Test func anIdentityReadsAsItsCertificateAndItsKeyThroughTheJoin() throws {
        let cert = try TestCertificate(commonName: "Alice")
        _ = try v.add(["class": "cert", "v_Data": .data(cert.der)])
        _ = try v.add(["class": "keys", "kcls": 1, "atag": "alice", "v_Data": .data(cert.privateKeyX963)])
        let identity = try #require(try v.copy(["class": "idnt", "r_PersistentRef": true])?.dataValue)
        #expect(try v.keychain.read(.data, of: identity, caller: v.caller) == cert.der)
        #expect(try v.keychain.read(.identityKey, of: identity, caller: v.caller) == cert.privateKeyX963)
        try v.update(["class": "keys", "atag": "alice"], ["extr": false])
        #expect(
            v.status { _ = try v.keychain.read(.identityKey, of: identity, caller: v.caller) }
                == SecStatus.dataNotAvailable,
            "the key's own rule holds through the join")
    }
}
