import CryptoKit
import Foundation
import KeychainFSTestSupport
import KeychainTesting
import LocalAuthentication
import Security
import Testing

/// The iOS sample (``DeviceSigningKey``) on the test kit: its key signs behind Face ID, its signatures verify
/// with swift-crypto and OpenSSL, and a locked device or a cancelled Face ID refuse it as on iOS.
@Suite struct SecureEnclaveSampleTests {
    static let childVariable = "CRYPTOKIT_SWITCH_CHILD"

    @Test func theSampleSignsBehindFaceIDAndItsSignaturesVerifyWithSwiftCryptoAndOpenSSL() throws {
        let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
        device.prompts.automatic = .match
        try device.run {
            let sample = DeviceSigningKey()
            let made = try sample.create()
            let message = Data("transfer 10 EUR to account 42".utf8)
            let signature = try sample.sign(message)
            #expect(device.prompts.raisedCount == 1, "Face ID was asked once, when the key signed")
            let loaded = try #require(try sample.load())
            #expect(loaded.publicKey.rawRepresentation == made.publicKey.rawRepresentation)
            #expect(made.publicKey.isValidSignature(signature, for: message), "swift-crypto's P256 verifies it")
            #expect(!made.publicKey.isValidSignature(signature, for: Data("transfer 99 EUR".utf8)))
            #expect(try OpenSSLVerify.verifies(signature, of: message, by: made.publicKey))
            #expect(try !OpenSSLVerify.verifies(signature, of: message + Data([0]), by: made.publicKey))
        }
    }

    @Test func aLockedDeviceACancelledOrFailedFaceIDAndANewFaceRefuseTheKey() throws {
        let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
        try device.run {
            let sample = DeviceSigningKey()
            _ = try sample.create()
            let key = try #require(try sample.load())
            let message = Data("m".utf8)
            device.lock()
            #expect(status(of: { _ = try key.signature(for: message) }) == errSecInteractionNotAllowed)
            #expect(status(of: { _ = try sample.load() }) == errSecInteractionNotAllowed, "nor is its item readable")
            try device.unlock(passcode: "1234")
            device.prompts.automatic = .cancel
            #expect(status(of: { _ = try key.signature(for: message) }) == errSecUserCanceled)
            device.prompts.automatic = .noMatch
            #expect(status(of: { _ = try key.signature(for: message) }) == errSecAuthFailed)
            device.prompts.automatic = .match
            #expect(status(of: { _ = try key.signature(for: message) }) == errSecSuccess)
            // A new face invalidates `.biometryCurrentSet` keys made before: errSecItemNotFound, without a
            // prompt, as for such an item (docs/authentication-table.md, rule 2).
            try device.biometry.enroll()
            let prompts = device.prompts.raisedCount
            #expect(status(of: { _ = try key.signature(for: message) }) == errSecItemNotFound)
            #expect(device.prompts.raisedCount == prompts)
        }
    }

    @Test func anEvaluatedLAContextSignsWithoutAnotherPrompt() throws {
        let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
        device.prompts.automatic = .match
        try device.run {
            let context = LAContext()
            let sample = DeviceSigningKey()
            _ = try sample.create(context: context)
            let evaluated = LockedBox<Bool?>(nil)
            let done = DispatchSemaphore(value: 0)
            context.evaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, localizedReason: "sign") { ok, _ in
                evaluated.value = ok
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 60) == .success)
            #expect(evaluated.value == true)
            let prompts = device.prompts.raisedCount
            let key = try #require(try sample.load(context: context))
            _ = try key.signature(for: Data("a".utf8))
            _ = try key.signature(for: Data("b".utf8))
            #expect(device.prompts.raisedCount == prompts, "the context's evaluation covers the key's uses")
            let noUI = LAContext()
            noUI.interactionNotAllowed = true
            let quiet = try #require(try sample.load(context: noUI))
            #expect(status(of: { _ = try quiet.signature(for: Data("c".utf8)) }) == errSecInteractionNotAllowed)
        }
    }

    /// The access control is judged by the engine from the sealed blob: with that judgement switched off
    /// (a test device only) a cancelled Face ID no longer refuses, which is what this test can see.
    @Test func theKeysOwnAccessControlIsWhatRefusesUnlessSwitchedOff() throws {
        let note = TestDirectory.root + "/cryptokit-switch-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: note) }
        for switchedOff in [false, true] {
            var environment = [Self.childVariable: note]
            if switchedOff { environment["KEYCHAINFS_TEST_DISABLE_GUARDS"] = "enclave-key-access" }
            let child = try ChildTest.run(
                "SecureEnclaveSampleTests/signWithACancelledFaceID", environment: environment, timeout: 120)
            #expect(child.status == 0, "\(child.stderr)")
            let outcome = try String(contentsOfFile: note, encoding: .utf8)
            #expect(outcome == (switchedOff ? "\(errSecSuccess)" : "\(errSecUserCanceled)"))
        }
    }

    /// Run by ``theKeysOwnAccessControlIsWhatRefusesUnlessSwitchedOff()``: writes the status of a signature
    /// asked for with Face ID cancelled.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[SecureEnclaveSampleTests.childVariable] != nil))
    func signWithACancelledFaceID() throws {
        let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
        device.prompts.automatic = .cancel
        try device.run {
            let key = try DeviceSigningKey().create()
            let outcome = status(of: { _ = try key.signature(for: Data("m".utf8)) })
            try "\(outcome)".write(
                toFile: ProcessInfo.processInfo.environment[Self.childVariable]!, atomically: true, encoding: .utf8)
        }
    }
}

/// The OSStatus a Secure Enclave call threw (its NSError's code in NSOSStatusErrorDomain), or errSecSuccess.
func status(of body: () throws -> Void) -> OSStatus {
    do {
        try body()
        return errSecSuccess
    } catch let error as NSError where error.domain == "NSOSStatusErrorDomain" {
        return OSStatus(error.code)
    } catch DeviceSigningKey.Failure.keychain(let status) {
        return status
    } catch {
        return errSecCoreFoundationUnknown
    }
}
