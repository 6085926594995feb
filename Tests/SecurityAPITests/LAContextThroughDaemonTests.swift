import Foundation
import Synchronization
import Testing
import KeychainFSTestSupport

/// LAContext and Face ID-protected items in another process (`la-probe`), answered from a script with
/// `keychainfs device prompt` (docs/spec.md §11; docs/authentication-table.md).
@Suite struct LAContextThroughDaemonTests {
    let m: MountedVault
    init() throws { m = try MountedVault() }

    func probe(_ arguments: String...) -> [String] {
        Command.run(
            MountedVault.builtProgram("la-probe"), arguments, environment: ["KEYCHAIN_VAULT": m.vault], timeout: 60
        )
        .stdout.split(separator: "\n").map(String.init)
    }

    /// Runs the probe in the background; `lines()` waits for it (bounded).
    func background(_ arguments: String...) -> () -> [String] {
        let result = Mutex<[String]?>(nil)
        let done = DispatchSemaphore(value: 0)
        let args = arguments, vault = m.vault
        Thread.detachNewThread {
            let out = Command.run(
                MountedVault.builtProgram("la-probe"), args, environment: ["KEYCHAIN_VAULT": vault], timeout: 60)
            result.withLock { $0 = out.stdout.split(separator: "\n").map(String.init) }
            done.signal()
        }
        return { done.wait(timeout: .now() + 70) == .success ? result.withLock { $0 } ?? [] : ["timed out"] }
    }

    func prompts() -> [String] { m.device("prompts").stdout.split(separator: "\n").map(String.init) }

    @Test func canEvaluatePolicyTellsTheTruthInEachDeviceState() throws {
        #expect(probe("can", "biometrics").first == "no com.apple.LocalAuthentication -5", "no passcode")
        #expect(probe("can", "owner").first == "no com.apple.LocalAuthentication -5")
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        #expect(probe("can", "biometrics").first == "no com.apple.LocalAuthentication -7", "not enrolled")
        #expect(probe("can", "owner").first == "yes none")
        try expectSuccess(m.device("biometry", "enroll"))
        let enrolled = probe("can", "biometrics")
        #expect(enrolled.first == "yes faceID")
        try expectSuccess(m.device("biometry", "enroll"))
        let again = probe("can", "biometrics")
        #expect(again.first == "yes faceID")
        #expect(enrolled.last != again.last && again.last != "domain nil", "the domain state changes on re-enrolment")
        try expectSuccess(m.device("prompt", "auto", "no-match"))
        for _ in 0..<5 { #expect(probe("evaluate", "biometrics") == ["LAError authenticationFailed"]) }
        #expect(probe("can", "biometrics").first == "no com.apple.LocalAuthentication -8", "locked out")
        #expect(probe("evaluate-async", "biometrics") == ["LAError biometryLockout"], "async form, matched as LAError")
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(probe("can", "biometrics").first == "yes faceID")
    }

    @Test func evaluatePolicyIsAnsweredFromAnotherProcess() throws {
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("biometry", "enroll"))
        try expectSuccess(m.device("prompt", "auto", "off"))
        let evaluation = background("evaluate", "biometrics")
        #expect(m.wait(20) { prompts().count == 1 })
        #expect(prompts().first?.contains("la-probe") == true, "the prompt names its caller")
        try expectSuccess(m.device("prompt", "match"))
        #expect(evaluation() == ["ok"])
        try expectSuccess(m.device("prompt", "auto", "cancel"))
        #expect(probe("evaluate-async", "biometrics") == ["LAError userCancel"])
    }

    @Test func aProtectedTokenWithItsPromptAndAReusedContext() throws {
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("biometry", "enroll"))
        #expect(probe("save", "bank", "alice", "tok-1", "2") == ["status 0"])  // .biometryAny
        try expectSuccess(m.device("prompt", "auto", "off"))
        let read = background("read", "bank", "alice")
        #expect(m.wait(20) { prompts().count == 1 })
        #expect(prompts().first?.contains("Unlock your token") == true, "kSecUseOperationPrompt is the reason")
        try expectSuccess(m.device("prompt", "cancel"))
        #expect(read() == ["status -128"])
        try expectSuccess(m.device("prompt", "match", "--next"))
        #expect(probe("read", "bank", "alice") == ["secret tok-1"])
        // One evaluation, two reads without a prompt; after invalidate() a prompt again (auto cancel).
        try expectSuccess(m.device("prompt", "auto", "cancel"))
        try expectSuccess(m.device("prompt", "match", "--next"))
        #expect(
            probe("context-read", "bank", "alice") == [
                "ok", "secret tok-1", "secret tok-1", "status -128", "LAError invalidContext",
            ])
    }

    /// `.applicationPassword` (rule 8) from Swift code through the daemon: the item is made with the password an
    /// LAContext carries, read with it and refused without it or with another; `cat` cannot pass one (EACCES).
    @Test func anApplicationPasswordItemThroughLAContextSetCredential() throws {
        func probe(_ arguments: [String], password: String?) -> [String] {
            Command.run(
                MountedVault.builtProgram("la-probe"), arguments, stdin: password.map { $0 + "\n" } ?? "",
                environment: ["KEYCHAIN_VAULT": m.vault], timeout: 60
            ).stdout.split(separator: "\n").map(String.init)
        }
        let flags = String(UInt64(1) << 31)
        #expect(
            probe(["password-save", "vpn", "bob", "s3cret", flags], password: nil) == ["status -25293"],
            "no credential, no item")
        #expect(probe(["password-save", "vpn", "bob", "s3cret", flags], password: "hunter2") == ["status 0"])
        #expect(probe(["password-read", "vpn", "bob"], password: "hunter2") == ["credential true", "secret s3cret"])
        #expect(probe(["password-read", "vpn", "bob"], password: "hunter3") == ["credential true", "status -25293"])
        #expect(probe(["password-read", "vpn", "bob"], password: nil) == ["credential false", "status -25293"])
        #expect(prompts().isEmpty, "a password is never prompted for")
        let value = m.path("genp/vpn/bob/value")
        #expect(m.wait(5) { FileManager.default.fileExists(atPath: value) })
        let fd = open(value, O_RDONLY)
        let openErrno = errno
        if fd >= 0 { close(fd) }
        #expect(fd == -1 && openErrno == EACCES, "the filesystem cannot carry a password")
        // With biometry as well, both are needed: the password, then the face (no password: no prompt at all).
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("biometry", "enroll"))
        let both = String(UInt64(1) << 31 | 1 << 1)
        #expect(probe(["password-save", "vpn", "carol", "t0ken", both], password: "pw") == ["status 0"])
        try expectSuccess(m.device("prompt", "match", "--next"))
        #expect(probe(["password-read", "vpn", "carol"], password: "pw") == ["credential true", "secret t0ken"])
        #expect(probe(["password-read", "vpn", "carol"], password: nil) == ["credential false", "status -25293"])
        #expect(prompts().isEmpty)
    }

    /// A Secure Enclave key keeps the LAContext it was made or found with (kSecUseAuthenticationContext), as
    /// Apple's key references do: an evaluated context signs without a second prompt until invalidated, and
    /// an application password set on it opens the key's item.
    @Test func enclaveKeysKeepTheirContext() throws {
        func probe(_ arguments: [String], password: String?) -> [String] {
            Command.run(
                MountedVault.builtProgram("la-probe"), arguments, stdin: password.map { $0 + "\n" } ?? "",
                environment: ["KEYCHAIN_VAULT": m.vault], timeout: 60
            ).stdout.split(separator: "\n").map(String.init)
        }
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("biometry", "enroll"))
        try expectSuccess(m.device("prompt", "auto", "cancel"))
        let before = m.device("biometry", "status").stdout
        try expectSuccess(m.device("prompt", "match", "--next"))
        let usage = String(UInt64(1) << 30 | 1 << 1)  // [.privateKeyUsage, .biometryAny]
        #expect(
            probe(["se-context", "se.bio", usage], password: nil) == [
                "ok", "made: signed", "found with the context: signed signed", "found without: sign -128",
                "invalidated: sign -128",
            ], "one face for the evaluation; a key found without it asks (auto cancel); invalidate() ends it")
        #expect(m.device("biometry", "status").stdout == before)
        let password = String(UInt64(1) << 30 | 1 << 31)  // [.privateKeyUsage, .applicationPassword]
        #expect(
            probe(["se-context", "se.pw", password], password: "open sesame") == [
                "made: signed", "found with the context: signed signed", "found without: not found",
                "invalidated: signed",
            ],
            "the password opens the key's item (finding it too: ours); invalidate() ends evaluations, not the credential"
        )
        #expect(probe(["se-context", "se.nopw", password], password: nil) == ["create -25293"])
    }

    @Test func reuseDurationAfterABiometricUnlock() throws {
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("biometry", "enroll"))
        #expect(probe("evaluate", "biometrics", "60") == ["LAError userCancel"], "no biometric unlock yet")
        try expectSuccess(m.device("unlock", "--biometry"))
        #expect(probe("evaluate", "biometrics", "60") == ["ok"], "unlocked with Face ID within 60 s: no prompt")
        #expect(probe("evaluate", "biometrics") == ["LAError userCancel"], "without a reuse duration it asks")
    }

    @Test func faceIDUnlocksALockedDeviceAfterThePasscode() throws {
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("biometry", "enroll"))
        try expectSuccess(m.device("lock"))
        let first = m.device("unlock", "--biometry")
        #expect(
            !first.succeeded && first.stderr.contains("passcode is required"),
            "no passcode unlock since enrolment: \(first.stderr)")
        try expectSuccess(m.device("unlock", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        let miss = m.device("unlock", "--biometry", "--no-match")
        #expect(!miss.succeeded && miss.stderr.contains("does not match"), "\(miss.stderr)")
        #expect(m.device("biometry", "status").stdout.contains("failed matches: 1"), "the no-match counts")
        try expectSuccess(m.device("unlock", "--biometry"))
        #expect(m.device("status").stdout.contains("state: unlocked"))
    }
}
