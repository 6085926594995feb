import KeychainFSControlChannel
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// `security find-certificate` and `find-identity` against real certificates (openssl req -x509),
/// checked against what openssl itself prints of the same certificate.
@Suite struct CertificateVerbTests {
    let m: MountedVault
    let alice: TestCertificate, bob: TestCertificate

    /// Alice: a certificate with its private key (an identity); Bob: a certificate alone.
    init() throws {
        m = try MountedVault()
        alice = try TestCertificate(commonName: "Alice Example", serial: "01")
        bob = try TestCertificate(commonName: "Bob Example", serial: "02")
        let connection = try KeychainConnection(vault: Vault(directory: m.vault), caller: Caller())
        _ = try connection.add(["class": "cert", "v_Data": .data(alice.der)])
        _ = try connection.add(["class": "keys", "kcls": 1, "atag": "alice", "v_Data": .data(alice.privateKeyX963)])
        _ = try connection.add(["class": "cert", "v_Data": .data(bob.der)])
    }

    /// What openssl prints of `der`: its PEM, or a fingerprint as colon-less upper-case hex.
    func openssl(_ der: Data, _ arguments: [String]) throws -> String {
        let file = m.root + "/cert-\(UUID().uuidString).der"
        try der.write(to: URL(fileURLWithPath: file))
        let result = Command.run("/usr/bin/openssl", ["x509", "-inform", "DER", "-in", file] + arguments)
        try expectSuccess(result)
        return result.stdout
    }

    func fingerprint(_ der: Data, _ digest: String) throws -> String {
        let line = try openssl(der, ["-noout", "-fingerprint", "-" + digest])
        return String(line.split(separator: "=").last ?? "").replacingOccurrences(of: ":", with: "").trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    @Test func findCertificateByNameAsPEMWithHashes() throws {
        let found = m.cli(["find-certificate", "-c", "Bob", "-p", "-Z", m.vault])
        #expect(found.succeeded, "\(found.stderr)")
        let expected =
            "SHA-256 hash: \(try fingerprint(bob.der, "sha256"))\nSHA-1 hash: \(try fingerprint(bob.der, "sha1"))\n"
            + (try openssl(bob.der, ["-outform", "PEM"]))
        #expect(found.stdout == expected)
    }

    @Test func findCertificateAttributesAllAndNotFound() throws {
        let all = m.cli(["find-certificate", "-a", m.vault])
        #expect(all.succeeded)
        #expect(all.stdout.components(separatedBy: "class: 0x80001000 \n").count == 3, "two certificates")
        #expect(
            all.stdout.contains("    \"labl\"<blob>=\"Alice Example\"")
                && all.stdout.contains("    \"labl\"<blob>=\"Bob Example\""))
        #expect(all.stdout.contains("    \"cenc\"<uint32>=0x00000003 "))
        let first = m.cli(["find-certificate", m.vault])
        #expect(first.stdout.components(separatedBy: "class: 0x80001000 \n").count == 2, "one without -a")
        let none = m.cli(["find-certificate", "-c", "Carol", m.vault])
        #expect(
            none.status == 44
                && none.stderr.contains(
                    "security: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.")
        )
        let email = m.cli(["find-certificate", "-e", "nobody@example.com", m.vault])
        #expect(email.status == 44)
    }

    @Test func findIdentityListsTheCertificateWithItsKey() throws {
        let sha1 = try fingerprint(alice.der, "sha1")
        let valid = m.cli(["find-identity", "-v", m.vault])
        #expect(valid.succeeded)
        #expect(
            valid.stdout == "  1) \(sha1) \"Alice Example\"\n     1 valid identities found\n",
            "Bob has no key: not an identity")
        let policy = m.cli(["find-identity", "-p", "codesigning", m.vault])
        #expect(
            policy.stdout
                == "\nPolicy: Code Signing\n  Matching identities\n  1) \(sha1) \"Alice Example\"\n     1 identities found\n\n"
                + "  Valid identities only\n  1) \(sha1) \"Alice Example\"\n     1 valid identities found\n")
        #expect(m.cli(["find-identity", "-p", "nonsense", m.vault]).status != 0)
    }

    /// Certificates default to kSecAttrAccessibleAlways (docs/reference/keychain-semantics.md §2.5), so they stay readable while
    /// locked; a WhenUnlocked one, and every identity (its key is WhenUnlocked), end the search with 36.
    @Test func whileLockedTheVerbsMeetTheLock() throws {
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        #expect(
            m.cli(["find-certificate", "-c", "Bob", m.vault]).succeeded,
            "an Always certificate is readable while locked")
        #expect(m.cli(["find-identity", "-v", m.vault]).status == 36, "errSecInteractionNotAllowed's low byte")
        try expectSuccess(m.device("unlock", passcode: "1234"))
        let carol = try TestCertificate(commonName: "Carol Example", serial: "03")
        let connection = try KeychainConnection(vault: Vault(directory: m.vault), caller: Caller())
        _ = try connection.add(["class": "cert", "v_Data": .data(carol.der), "pdmn": "ak"])
        try expectSuccess(m.device("lock"))
        let locked = m.cli(["find-certificate", "-a", m.vault])
        #expect(locked.status == 36, "the search meets a WhenUnlocked certificate: \(locked.status) \(locked.stderr)")
    }
}
