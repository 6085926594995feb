import Foundation
import KeychainFSTestSupport
import Testing

/// A SecKeyCreateRandomKey Secure Enclave key in a vault whose device key a TPM seals (docs/tpm.md): made and
/// used in the TPM through the daemon (iOS code in `seckey-probe`), and usable from OpenSSL through
/// Debian's tpm2-openssl provider with its TSS2 PRIVATE KEY file, on that TPM only.
@Suite struct TPMSecureEnclaveKeyTests {
    @Test func aTPMKeySignsThroughTheDaemonAndThroughTPM2OpenSSL() throws {
        try #require(SoftwareTPM.isInstalled, "swtpm is missing: scripts/install-deps.sh installs it")
        let tpm = try SoftwareTPM()
        let m = try MountedVault(initArguments: ["--test-device", "--tpm", "--tpm-tcti", tpm.tcti])
        #expect(SecureEnclaveDaemonTests.probe(m, "seckey-probe", "se-generate", "se.tag") == "generated")
        #expect(SecureEnclaveDaemonTests.probe(m, "seckey-probe", "se-sign", "se.tag") == "verified")
        #expect(
            SecureEnclaveDaemonTests.probe(m, "seckey-probe", "se-export", "se.tag") == "refused -4",
            "the private key is not exported")

        let pem = m.root + "/se.tss2.pem"
        try expectSuccess(
            Command.run(
                MountedVault.binary, ["export-tpm-key", "--tag", "se.tag", "-o", pem],
                environment: ["KEYCHAIN_VAULT": m.vault]))
        let text = try String(contentsOfFile: pem, encoding: .utf8)
        #expect(text.hasPrefix("-----BEGIN TSS2 PRIVATE KEY-----"))
        #expect((try FileManager.default.attributesOfItem(atPath: pem)[.posixPermissions] as? Int) == 0o600)
        let again = Command.run(
            MountedVault.binary, ["export-tpm-key", "--tag", "se.tag", "-o", pem],
            environment: ["KEYCHAIN_VAULT": m.vault])
        #expect(again.status != 0, "an existing file is never overwritten")

        let message = m.root + "/message"
        try Data("signed by OpenSSL in the TPM".utf8).write(to: URL(fileURLWithPath: message))
        func openssl(_ arguments: [String], tcti: String) -> CommandResult {
            Command.run("/usr/bin/openssl", arguments, environment: ["TPM2OPENSSL_TCTI": tcti, "TSS2_LOG": "all+NONE"])
        }
        let provider = ["-provider", "tpm2", "-provider", "default", "-propquery", "?provider=tpm2"]
        try expectSuccess(
            openssl(["pkey"] + provider + ["-in", pem, "-pubout", "-out", m.root + "/se.pub.pem"], tcti: tpm.tcti))
        try expectSuccess(
            openssl(
                ["pkeyutl"] + provider + [
                    "-sign", "-inkey", pem, "-rawin", "-in", message, "-digest", "sha256", "-out", m.root + "/se.sig",
                ], tcti: tpm.tcti))
        let verified = Command.run(
            "/usr/bin/openssl",
            ["dgst", "-sha256", "-verify", m.root + "/se.pub.pem", "-signature", m.root + "/se.sig", message])
        #expect(verified.stdout.contains("Verified OK"), "\(verified.stdout)\(verified.stderr)")

        // The file with another TPM: nothing to sign with.
        let other = try SoftwareTPM()
        let refused = openssl(
            ["pkeyutl"] + provider + [
                "-sign", "-inkey", pem, "-rawin", "-in", message, "-digest", "sha256", "-out", m.root + "/x.sig",
            ],
            tcti: other.tcti)
        #expect(refused.status != 0)

        // A simulator key (a vault without a TPM) has no such file.
        let plain = try MountedVault()
        #expect(SecureEnclaveDaemonTests.probe(plain, "seckey-probe", "se-generate", "se.tag") == "generated")
        let none = Command.run(
            MountedVault.binary, ["export-tpm-key", "--tag", "se.tag"], environment: ["KEYCHAIN_VAULT": plain.vault])
        #expect(none.status != 0 && none.stderr.contains("made in a TPM"), "\(none.stderr)")
    }
}
