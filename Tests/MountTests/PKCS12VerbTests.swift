import Foundation
import Testing
import KeychainFSTestSupport

/// `security import` of PKCS#12 files and encrypted keys, and `security export` (docs/spec.md §13), against files made
/// and read by openssl and Python's cryptography: what one writes the other reads.
@Suite struct PKCS12VerbTests {
    struct Setup {
        let m: MountedVault
        func security(_ arguments: [String]) -> CommandResult {
            Command.run(
                MountedVault.binary, arguments, stdin: nil,
                environment: ["KEYCHAIN_VAULT": m.vault, "KEYCHAIN_ACCESS_GROUPS": ""])
        }
        func identities(_ name: String) -> Int { (try? FS.list(m.path("idnt/\(name)")).get().count) ?? 0 }
    }

    @Test(arguments: [("ec", false), ("ec", true), ("rsa", false), ("rsa", true)])
    func importsPKCS12AsAnIdentity(_ keyType: String, _ legacy: Bool) throws {
        let s = Setup(m: try MountedVault())
        let name = "Leaf \(keyType) \(legacy ? "legacy" : "modern")"
        let fixture = try PKCS12Fixture(keyType: keyType, commonName: name)
        let file = try fixture.pkcs12(legacy: legacy, passphrase: "s3cret", friendlyName: "the identity")
        let wrong = s.security(["import", file, "-P", "not it"])
        #expect(
            wrong.status == 51 && wrong.stderr.contains("SecKeychainItemImport"), "errSecAuthFailed: \(wrong.stderr)")
        #expect(s.security(["import", file]).status == 51, "no -P: the empty passphrase, which is not this one")
        #expect(FS.list(s.m.path("cert")) == .success([]) && FS.list(s.m.path("keys")) == .success([]), "nothing added")
        let imported = s.security(["import", file, "-P", "s3cret"])
        #expect(
            imported.stdout == "1 identity imported.\n1 certificate imported.\n",
            "the leaf with its key, and the CA: \(imported.stderr)")
        #expect(s.m.wait(3) { s.identities(name) == 1 }, "the identity appears under idnt/")
        #expect(s.security(["find-identity", "-v"]).stdout.contains("\"\(name)\""))
        #expect(s.security(["import", file, "-P", "s3cret"]).status == 45, "errSecDuplicateItem the second time")
    }

    @Test func importsAnEncryptedPEMKey() throws {
        let s = Setup(m: try MountedVault())
        let fixture = try PKCS12Fixture(keyType: "ec", commonName: "Encrypted Key")
        let key = try fixture.encryptedKey(passphrase: "kp")
        let missing = s.security(["import", key])
        #expect(!missing.succeeded && missing.stderr.contains("-P"), "\(missing.stderr)")
        #expect(s.security(["import", key, "-P", "wrong"]).status == 51)
        #expect(FS.list(s.m.path("keys")) == .success([]))
        #expect(s.security(["import", key, "-P", "kp"]).stdout == "1 key imported.\n")
        // The stored key is the one openssl made: its public key, exported, is openssl's.
        let exported = s.security(["export", "-t", "privKeys", "-f", "pkcs8", "-p"])
        #expect(
            try fixture.openssl(["pkey", "-pubout"], stdin: exported.stdout)
                == (try fixture.openssl(["pkey", "-in", fixture.leafKey, "-pubout"])))
    }

    @Test func exportsWhatOpenSSLAndPythonRead() throws {
        let s = Setup(m: try MountedVault())
        #expect(s.security(["export"]).status == 44, "nothing to export")
        let fixture = try PKCS12Fixture(keyType: "rsa", commonName: "Exported Leaf")
        #expect(
            s.security([
                "import", try fixture.pkcs12(legacy: false, passphrase: "p", friendlyName: "x", chain: false), "-P",
                "p",
            ]).succeeded)

        // Certificates: DER by default for one with x509, PEM with -p, as openssl prints them.
        let pem = s.security(["export", "-t", "certs", "-f", "x509", "-p"])
        #expect(pem.stdout == (try fixture.openssl(["x509", "-in", fixture.leafCertificate])))
        let der = fixture.directory + "/exported.der"
        #expect(s.security(["export", "-t", "certs", "-f", "x509", "-o", der]).succeeded)
        #expect(
            FileManager.default.contents(atPath: der)
                == FileManager.default.contents(atPath: fixture.directory + "/leaf.der"))
        #expect(
            s.security(["export", "-t", "certs"]).stdout.hasPrefix("-----BEGIN CERTIFICATE-----"), "pemseq by default")

        // Private keys, wrapped: openssl opens them with the passphrase, and they are the leaf's key.
        let wrapped = s.security(["export", "-t", "privKeys", "-f", "pkcs8", "-p", "-w", "-P", "wrap"])
        #expect(wrapped.stdout.hasPrefix("-----BEGIN ENCRYPTED PRIVATE KEY-----"))
        #expect(s.security(["export", "-t", "privKeys", "-w"]).status != 0, "-w needs -P")
        let leafPublic = try fixture.openssl(["pkey", "-in", fixture.leafKey, "-pubout"])
        #expect(try fixture.openssl(["pkey", "-passin", "pass:wrap", "-pubout"], stdin: wrapped.stdout) == leafPublic)
        #expect(
            try fixture.openssl(["pkey", "-pubout"], stdin: s.security(["export", "-t", "privKeys", "-p"]).stdout)
                == leafPublic,
            "openssl's traditional form by default")
        let traditional = s.security(["export", "-t", "privKeys", "-f", "openssl", "-p", "-w", "-P", "old"]).stdout
        #expect(traditional.contains("Proc-Type: 4,ENCRYPTED"), "traditional PEM encryption")
        #expect(try fixture.openssl(["pkey", "-passin", "pass:old", "-pubout"], stdin: traditional) == leafPublic)

        // The identity as PKCS#12: needs -P; openssl and Python's cryptography read it.
        #expect(s.security(["export", "-t", "identities"]).status != 0, "no passphrase: refused (macOS would ask)")
        let p12 = fixture.directory + "/exported.p12"
        let planted = fixture.directory + "/planted"
        try "do not touch".write(toFile: planted, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: p12, withDestinationPath: planted)
        #expect(s.security(["export", "-t", "identities", "-P", "out", "-o", p12]).succeeded)
        #expect(
            try String(contentsOfFile: planted, encoding: .utf8) == "do not touch",
            "a symlink at the name is replaced, not followed")
        var st = stat()
        #expect(lstat(p12, &st) == 0 && st.st_mode & S_IFMT == S_IFREG && st.st_mode & 0o777 == 0o600)
        let unpacked = try fixture.openssl(["pkcs12", "-in", p12, "-passin", "pass:out", "-nodes"])
        #expect(unpacked.contains("friendlyName: Exported Leaf"))
        #expect(
            try fixture.openssl(["pkey", "-pubout"], stdin: unpacked) == leafPublic, "the key inside is the leaf's")
        #expect(
            try fixture.openssl(["x509"], stdin: unpacked)
                == (try fixture.openssl(["x509", "-in", fixture.leafCertificate])))
        let python = Command.run(
            "/usr/bin/python3",
            [
                "-c",
                """
                import sys
                from cryptography.hazmat.primitives.serialization import pkcs12
                key, cert, extra = pkcs12.load_key_and_certificates(open(sys.argv[1], 'rb').read(), b'out')
                print(cert.subject.rfc4514_string(), key.key_size, len(extra))
                """, p12,
            ])
        #expect(
            python.stdout.hasPrefix("O=keychainfs tests,CN=Exported Leaf 2048 0"), "\(python.stdout) \(python.stderr)")

        // Every identity goes into one file, as macOS writes it, with OpenSSL 3's default algorithms.
        let second = try PKCS12Fixture(keyType: "ec", commonName: "Second Leaf")
        #expect(
            s.security([
                "import", try second.pkcs12(legacy: true, passphrase: "q", friendlyName: "y", chain: false), "-P", "q",
            ]).succeeded)
        let both = fixture.directory + "/both.p12"
        #expect(s.security(["export", "-t", "identities", "-P", "two", "-o", both]).succeeded)
        let info = Command.run(
            "/usr/bin/openssl", ["pkcs12", "-in", both, "-passin", "pass:two", "-info", "-nodes"], environment: [:])
        #expect(info.succeeded, "\(info.stderr)")
        #expect(
            info.stdout.components(separatedBy: "BEGIN CERTIFICATE").count - 1 == 2
                && info.stdout.components(separatedBy: "BEGIN PRIVATE KEY").count - 1 == 2)
        #expect(info.stderr.contains("MAC: sha256") && info.stderr.contains("AES-256-CBC"), "\(info.stderr)")
        let all = fixture.directory + "/all.p12"
        #expect(
            s.security(["export", "-t", "all", "-f", "pkcs12", "-P", "two", "-o", all]).succeeded,
            "-t all has the identities too")
        #expect(
            try fixture.openssl(["pkcs12", "-in", all, "-passin", "pass:two", "-nodes"]).components(
                separatedBy: "BEGIN PRIVATE KEY"
            ).count - 1 == 2)
    }

    /// While the device is locked, secrets are not exported (36) and nothing is written; certificates
    /// (kSecAttrAccessibleAlways by default) still are.
    @Test func lockedKeysAreNotExported() throws {
        let s = Setup(m: try MountedVault())
        let fixture = try PKCS12Fixture(keyType: "ec", commonName: "Locked Leaf")
        try expectSuccess(s.m.device("passcode", "set", passcode: "1234"))
        #expect(
            s.security([
                "import", try fixture.pkcs12(legacy: false, passphrase: "p", friendlyName: "x", chain: false), "-P",
                "p",
            ]).succeeded)
        try expectSuccess(s.m.device("lock"))
        let out = fixture.directory + "/locked.p12"
        #expect(s.security(["export", "-t", "identities", "-P", "x", "-o", out]).status == 36)
        #expect(s.security(["export", "-t", "privKeys", "-p"]).status == 36)
        #expect(!FileManager.default.fileExists(atPath: out), "nothing written")
        #expect(
            s.security(["export", "-t", "certs", "-f", "x509", "-p"]).stdout
                == (try fixture.openssl(["x509", "-in", fixture.leafCertificate])))
    }
}
