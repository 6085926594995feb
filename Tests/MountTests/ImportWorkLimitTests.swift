import Foundation
import Testing
import KeychainFSTestSupport

/// `security import` caps the key-derivation work a file asks for (1,000,000 iterations; scrypt
/// within 32 MiB and N·r·p ≤ 2^22) and says so (errSecParam, exit 206), before deriving anything; a
/// file within the limits still imports.
@Suite struct ImportWorkLimitTests {
    static let paramExit: Int32 = 206  // errSecParam's low byte

    let fixture: PKCS12Fixture
    init() throws { fixture = try PKCS12Fixture(keyType: "ec", commonName: "Work Limit") }

    func importing(_ file: String) -> (result: CommandResult, seconds: Double) {
        let vault = fixture.directory + "/vault-\(UUID().uuidString.prefix(6))"
        let start = Date()
        let result = Command.run(
            MountedVault.binary, ["import", file, "-P", "pa55"],
            environment: ["KEYCHAIN_VAULT": vault, "KEYCHAIN_ACCESS_GROUPS": ""], timeout: 60)
        return (result, Date().timeIntervalSince(start))
    }

    /// A PEM file of `der` (an encrypted PKCS#8 key).
    func encryptedKeyFile(_ der: Data) throws -> String {
        let path = fixture.directory + "/patched-\(UUID().uuidString.prefix(6)).pem"
        let body = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        try "-----BEGIN ENCRYPTED PRIVATE KEY-----\n\(body)\n-----END ENCRYPTED PRIVATE KEY-----\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aPKCS12FileOverTheIterationLimitIsRefusedAtOnce() throws {
        let over = fixture.directory + "/over.p12"
        try fixture.openssl([
            "pkcs12", "-export", "-inkey", fixture.leafKey, "-in", fixture.leafCertificate, "-iter", "1000001",
            "-passout", "pass:pa55", "-out", over,
        ])
        let (refused, seconds) = importing(over)
        #expect(
            refused.status == Self.paramExit && refused.stderr.contains("asks for 1000001")
                && refused.stderr.contains("1000000"),
            "\(refused.status) \(refused.stderr)")
        // The control: a file at the limit, which derives its 1,000,000 iterations; one over it is refused
        // in a fraction of that time (before deriving), however loaded the machine is.
        let atLimit = fixture.directory + "/at-limit.p12"
        try fixture.openssl([
            "pkcs12", "-export", "-inkey", fixture.leafKey, "-in", fixture.leafCertificate, "-iter", "1000000",
            "-passout", "pass:pa55", "-out", atLimit,
        ])
        let (derived, control) = importing(atLimit)
        #expect(derived.succeeded, "\(derived.stderr)")
        #expect(seconds < control / 2, "refused before deriving: \(seconds) s, \(control) s to derive at the limit")
        let within = try fixture.pkcs12(legacy: false, passphrase: "pa55", friendlyName: "ok")
        #expect(importing(within).result.succeeded)
    }

    @Test func anEncryptedKeyOverTheIterationOrScryptLimitIsRefused() throws {
        let iterations = fixture.directory + "/iter.pem"
        try fixture.openssl([
            "pkcs8", "-topk8", "-in", fixture.leafKey, "-v2", "aes-256-cbc", "-iter", "1000001", "-passout",
            "pass:pa55", "-out", iterations,
        ])
        let refused = importing(iterations).result
        #expect(
            refused.status == Self.paramExit && refused.stderr.contains("1000001"),
            "\(refused.status) \(refused.stderr)")
        // PKCS#5 v1 and PKCS#12 PBEs (their parameters name the iterations directly).
        for (scheme, provider) in [
            ("PBE-MD5-DES", ["-provider", "legacy", "-provider", "default"]), ("PBE-SHA1-3DES", []),
        ] {
            let v1 = fixture.directory + "/\(scheme).pem"
            try fixture.openssl(
                [
                    "pkcs8", "-topk8", "-in", fixture.leafKey, "-v1", scheme, "-iter", "1000001", "-passout",
                    "pass:pa55", "-out", v1,
                ] + provider)
            let refusedV1 = importing(v1).result
            #expect(
                refusedV1.status == Self.paramExit && refusedV1.stderr.contains("1000001"),
                "\(scheme): \(refusedV1.status) \(refusedV1.stderr)")
        }

        // scrypt within OpenSSL's memory but over the work limit: 2^14 · 8 · 40.
        let work = fixture.directory + "/scrypt-work.pem"
        try fixture.openssl([
            "pkcs8", "-topk8", "-in", fixture.leafKey, "-scrypt", "-scrypt_N", "16384", "-scrypt_r", "8", "-scrypt_p",
            "40",
            "-passout", "pass:pa55", "-out", work,
        ])
        let slow = importing(work).result
        #expect(slow.status == Self.paramExit && slow.stderr.contains("scrypt"), "\(slow.status) \(slow.stderr)")

        // Absurd memory (r = 127: 254 MiB): refused as too much, not as a wrong passphrase (51).
        let small = fixture.directory + "/scrypt-small.pem"
        try fixture.openssl([
            "pkcs8", "-topk8", "-in", fixture.leafKey, "-scrypt", "-scrypt_N", "16384", "-scrypt_r", "8", "-scrypt_p",
            "1",
            "-passout", "pass:pa55", "-out", small,
        ])
        #expect(importing(small).result.succeeded, "within the limits")
        let pem = try String(contentsOfFile: small, encoding: .utf8).split(separator: "\n").filter {
            !$0.hasPrefix("-----")
        }.joined()
        var der = [UInt8](try #require(Data(base64Encoded: pem)))
        let parameters: [UInt8] = [0x02, 0x02, 0x40, 0x00, 0x02, 0x01, 0x08]  // N = 16384, r = 8
        let at = try #require(
            (0...(der.count - parameters.count)).first { Array(der[$0..<$0 + parameters.count]) == parameters })
        der[at + 6] = 0x7F
        let absurd = importing(try encryptedKeyFile(Data(der))).result
        #expect(absurd.status == Self.paramExit && absurd.stderr.contains("r=127"), "\(absurd.status) \(absurd.stderr)")
    }
}
