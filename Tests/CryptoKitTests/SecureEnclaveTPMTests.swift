import CryptoKit
import Foundation
import KeychainFSTestSupport
import Security
import Testing

/// CryptoKit's Secure Enclave in a vault whose device key a TPM seals (docs/tpm.md): the key is made and
/// used inside the TPM (swtpm), through the daemon, from a child process. Its signatures verify with
/// swift-crypto and OpenSSL, ECDH agrees with a software key, its access control still prompts, the lock
/// refuses it, and in a copy of the vault recovered onto another TPM (device key and passcode moved with
/// the recovery key) it is unusable (errSecDecode), which a software key would not be.
@Suite struct SecureEnclaveTPMTests {
    static let noteVariable = "CRYPTOKIT_TPM_NOTE"

    @Test func aKeyIsMadeAndUsedInTheTPMAndAnotherTPMCannotUseIt() throws {
        try #require(SoftwareTPM.isInstalled, "swtpm is missing: scripts/install-deps.sh installs it")
        let tpm = try SoftwareTPM()
        let recovery = TestDirectory.root + "/se-tpm-recovery-\(UUID().uuidString.prefix(8))"
        let m = try MountedVault(initArguments: [
            "--test-device", "--tpm", "--tpm-tcti", tpm.tcti, "--recovery-key", recovery,
        ])
        defer { m.close() }
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("biometry", "enroll"))
        let note = TestDirectory.root + "/cryptokit-tpm-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: note) }
        func child(_ step: String, vault: String) throws -> String {
            let run = try ChildTest.run(
                "SecureEnclaveTPMTests/tpmStep",
                environment: [Self.noteVariable: note, "KEYCHAIN_VAULT": vault, "CRYPTOKIT_STEP": step],
                timeout: 120)
            #expect(run.status == 0, "\(run.stderr)")
            return try String(contentsOfFile: note, encoding: .utf8)
        }
        func prompts(_ mode: String, _ mount: String) throws {
            try expectSuccess(m.cli(["device", "prompt", "auto", mode, "--mount", mount]))
        }
        try prompts("match", m.mount)
        #expect(try child("make", vault: m.vault) == "verified")
        #expect(try child("use", vault: m.vault) == "verified", "the stored representation is the TPM's key")
        #expect(try child("exchange", vault: m.vault) == "agreed")
        try prompts("cancel", m.mount)
        #expect(try child("use", vault: m.vault) == "\(errSecUserCanceled)", "its access control still prompts")
        try prompts("match", m.mount)
        try expectSuccess(m.device("lock"))
        #expect(try child("use", vault: m.vault) == "\(errSecInteractionNotAllowed)")
        m.unmount()

        // The vault on another TPM (the recovery key seals its device key there): the key is not that TPM's.
        let other = try SoftwareTPM()
        let copy = m.root + "/copy"
        try FileManager.default.copyItem(atPath: m.vault, toPath: copy)
        // With a passcode set, its TPM share moves too (sealed to the recovery key as well): the passcode is asked.
        let noPasscode = m.cli(
            ["move-device-key", copy, "--recover", recovery, "--tpm-tcti", other.tcti, "--passcode-stdin"],
            stdin: "9999\n")
        #expect(noPasscode.status != 0 && noPasscode.stderr.contains("errSecAuthFailed"), "\(noPasscode.stderr)")
        try expectSuccess(
            m.cli(
                ["move-device-key", copy, "--recover", recovery, "--tpm-tcti", other.tcti, "--passcode-stdin"],
                stdin: "1234\n"))
        let mountpoint = m.root + "/copy-mnt"
        try expectSuccess(Command.run(MountedVault.binary, ["mount", copy, mountpoint]))
        defer { _ = Command.run(MountedVault.binary, ["unmount", mountpoint]) }
        try expectSuccess(
            Command.run(
                MountedVault.binary, ["device", "unlock", "--mount", mountpoint, "--passcode-stdin"], stdin: "1234\n"))
        try prompts("match", mountpoint)
        #expect(try child("use", vault: copy) == "\(errSecDecode)")
    }

    /// Run by the test above: `make` stores a key's representation (DeviceSigningKey: Face ID, this device
    /// only) and signs, `use` signs with the stored key, `exchange` agrees on a secret with a software key.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[SecureEnclaveTPMTests.noteVariable] != nil))
    func tpmStep() throws {
        let environment = ProcessInfo.processInfo.environment
        let sample = DeviceSigningKey(service: "com.example.tpm-signing")
        let outcome: String
        do {
            switch environment["CRYPTOKIT_STEP"] {
            case "exchange":
                let enclave = try SecureEnclave.P256.KeyAgreement.PrivateKey()
                let software = P256.KeyAgreement.PrivateKey()
                let ours = try enclave.sharedSecretFromKeyAgreement(with: software.publicKey)
                let theirs = try software.sharedSecretFromKeyAgreement(with: enclave.publicKey)
                outcome = ours == theirs ? "agreed" : "differ"
            default:
                if environment["CRYPTOKIT_STEP"] == "make" { _ = try sample.create() }
                let key = try #require(try sample.load())
                let message = Data("signed in the TPM".utf8)
                let signature = try key.signature(for: message)
                let byOpenSSL = try OpenSSLVerify.verifies(signature, of: message, by: key.publicKey)
                let verified = key.publicKey.isValidSignature(signature, for: message) && byOpenSSL
                outcome = verified ? "verified" : "bad"
            }
        } catch DeviceSigningKey.Failure.keychain(let status) {
            outcome = "\(status)"
        } catch let error as NSError where error.domain == "NSOSStatusErrorDomain" {
            outcome = "\(error.code)"
        }
        try outcome.write(toFile: environment[Self.noteVariable]!, atomically: true, encoding: .utf8)
    }
}
