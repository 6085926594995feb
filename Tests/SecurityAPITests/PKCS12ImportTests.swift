import Foundation
import Security
import Testing
import KeychainFSTestSupport

/// `SecPKCS12Import` as iOS code calls it, on files made by `openssl pkcs12` (OpenSSL 3's default encryption
/// and `-legacy`): Apple's dictionaries, nothing added, then `SecItemAdd([kSecValueRef: identity])`.
@Suite struct PKCS12ImportTests {
    static let cases: [(keyType: String, legacy: Bool)] = [("ec", false), ("ec", true), ("rsa", false), ("rsa", true)]

    @Test(arguments: 0..<4)
    func importsTheIdentityAndAddsNothing(_ index: Int) throws {
        let (keyType, legacy) = Self.cases[index]
        let name = uniqueService("p12-\(keyType)-\(legacy)")
        let fixture = try PKCS12Fixture(keyType: keyType, commonName: name)
        let file = try Data(
            contentsOf: URL(
                fileURLWithPath: try fixture.pkcs12(legacy: legacy, passphrase: "pa55", friendlyName: "My \(name)")))

        var items: CFArray?
        #expect(
            SecPKCS12Import(file as CFData, [kSecImportExportPassphrase: "wrong"] as CFDictionary, &items)
                == errSecAuthFailed)
        #expect(
            SecPKCS12Import(
                Data("not pkcs12".utf8) as CFData, [kSecImportExportPassphrase: "pa55"] as CFDictionary, &items)
                == errSecDecode)
        #expect(
            SecPKCS12Import(file as CFData, [kSecImportExportPassphrase: "pa55"] as CFDictionary, &items)
                == errSecSuccess)
        let entries = try #require(items as? [[String: Any]])
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry[kSecImportItemLabel as String] as? String == "My \(name)", "the friendlyName openssl wrote")
        #expect(entry[kSecImportItemTrust as String] == nil, "no SecTrust here")
        if !legacy {
            #expect(
                entry[kSecImportItemKeyID as String] as? Data
                    == (try fixture.localKeyID(
                        of: try fixture.pkcs12(
                            legacy: false, passphrase: "pa55",
                            friendlyName: "x"), passphrase: "pa55")),
                "the localKeyID openssl wrote")
        }
        let chain = try #require(entry[kSecImportItemCertChain as String] as? [SecCertificate])
        #expect(chain.count == 2, "the certificate, then the CA")
        let identity = entry[kSecImportItemIdentity as String] as! SecIdentity
        var certificate: SecCertificate?
        #expect(SecIdentityCopyCertificate(identity, &certificate) == errSecSuccess)
        let leafDER = try Data(contentsOf: URL(fileURLWithPath: fixture.directory + "/leaf.der"))
        #expect(SecCertificateCopyData(certificate!) as Data == leafDER, "the leaf, as openssl has it")
        #expect(chain.first.map { SecCertificateCopyData($0) as Data } == leafDER)

        // As on iOS nothing was added; the app adds the identity itself.
        let query: [String: Any] = [
            kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: name, kSecReturnRef as String: true,
        ]
        var found: CFTypeRef?
        #expect(SecItemCopyMatching(query as CFDictionary, &found) == errSecItemNotFound)
        #expect(SecItemAdd([kSecValueRef: identity] as CFDictionary, nil) == errSecSuccess)
        defer { _ = SecItemDelete([kSecClass: kSecClassIdentity, kSecAttrLabel: name] as CFDictionary) }
        #expect(SecItemCopyMatching(query as CFDictionary, &found) == errSecSuccess)
        // The key signs, and the certificate's public key verifies it.
        var key: SecKey?
        #expect(SecIdentityCopyPrivateKey(found as! SecIdentity, &key) == errSecSuccess)
        let algorithm: SecKeyAlgorithm =
            keyType == "rsa" ? .rsaSignatureMessagePKCS1v15SHA256 : .ecdsaSignatureMessageX962SHA256
        let signature = try #require(SecKeyCreateSignature(key!, algorithm, Data("m".utf8) as CFData, nil))
        let publicKey = try #require(SecCertificateCopyKey(certificate!))
        #expect(SecKeyVerifySignature(publicKey, algorithm, Data("m".utf8) as CFData, signature, nil))
    }
}

/// SecPKCS12Import shares import's cap on key-derivation work (errSecParam, at once).
@Suite struct PKCS12ImportWorkLimitTests {
    @Test func aFileOverTheIterationLimitIsRefusedAtOnce() throws {
        let fixture = try PKCS12Fixture(keyType: "ec", commonName: uniqueService("p12-work"))
        let over = fixture.directory + "/over.p12"
        try fixture.openssl([
            "pkcs12", "-export", "-inkey", fixture.leafKey, "-in", fixture.leafCertificate, "-iter", "1000001",
            "-passout", "pass:pa55", "-out", over,
        ])
        // The control: a file at the limit derives its 1,000,000 iterations; one over it is refused in a
        // fraction of that time (before deriving), however loaded the machine is.
        let atLimit = fixture.directory + "/at-limit.p12"
        try fixture.openssl([
            "pkcs12", "-export", "-inkey", fixture.leafKey, "-in", fixture.leafCertificate, "-iter", "1000000",
            "-passout", "pass:pa55", "-out", atLimit,
        ])
        func importing(_ path: String) throws -> (status: OSStatus, seconds: Double) {
            let file = try Data(contentsOf: URL(fileURLWithPath: path))
            var items: CFArray?
            let start = Date()
            let status = SecPKCS12Import(file as CFData, [kSecImportExportPassphrase: "pa55"] as CFDictionary, &items)
            return (status, Date().timeIntervalSince(start))
        }
        let (derived, control) = try importing(atLimit)
        #expect(derived == errSecSuccess)
        let (refused, seconds) = try importing(over)
        #expect(refused == errSecParam)
        #expect(seconds < control / 2, "refused before deriving: \(seconds) s, \(control) s to derive at the limit")
    }
}
