import Foundation
import KeychainTesting
import LocalAuthentication
import Security
import Testing

/// The controls, each the engine's own device command, seen through the Security module.
@Suite struct DeviceControlTests {
    @Test func wrongPasscodeThrowsTheEnginesError() throws {
        let device = try SimulatedDevice(passcode: "1234")
        device.lock()
        #expect { try device.unlock(passcode: "0000") } throws: { ($0 as? KeychainError)?.status == errSecAuthFailed }
        #expect(device.isLocked && device.status.failedAttempts == 1)
        try device.unlock(passcode: "1234")
        #expect(!device.isLocked && device.status.failedAttempts == 0)
    }

    @Test func passcodeChangeAndRemoval() throws {
        let device = try SimulatedDevice()
        try device.setPasscode("1111")
        try device.changePasscode(from: "1111", to: "2222")
        device.reboot()
        #expect(throws: KeychainError.self) { try device.unlock(passcode: "1111") }
        try device.unlock(passcode: "2222")
        try device.run {
            let only = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, [], nil)
            #expect(TokenCode.save("t", access: only) == errSecSuccess)
            let removed = try device.removePasscode("2222")
            #expect(removed == 1, "WhenPasscodeSet items go with the passcode")
            #expect(TokenCode.read().0 == errSecItemNotFound)
        }
        device.lock()
        #expect(!device.isLocked, "without a passcode a lock changes nothing")
    }

    @Test func faceIDItemIsGatedByTheAnswer() throws {
        let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
        device.run {
            #expect(TokenCode.save("secret", access: TokenCode.faceIDAccess()) == errSecSuccess)
            device.prompts.answerNext(.match)
            #expect(TokenCode.read() == (errSecSuccess, "secret"))
            device.prompts.answerNext(.cancel)
            #expect(TokenCode.read().0 == errSecUserCanceled)
            device.prompts.answerNext(.noMatch)
            #expect(TokenCode.read().0 != errSecSuccess)
            device.biometry.unenroll()
            #expect(!device.biometry.isEnrolled)
            device.prompts.answerNext(.match)
            #expect(TokenCode.read().0 != errSecSuccess, "no face enrolled: biometry cannot open it")
        }
    }

    /// The read waits for its prompt on a thread of its own (``SimulatedDevice/runInBackground``), and this
    /// test waits for the prompt on its own thread: a read waiting in `async let` once held the cooperative pool in the full
    /// parallel run on 2 cores until the poll's 120 s ran out.
    @Test func pendingPromptAnsweredFromTheTest() throws {
        let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
        device.prompts.automatic = nil
        #expect(device.prompts.automatic == nil)
        #expect(device.run { TokenCode.save("secret", access: TokenCode.faceIDAccess()) } == errSecSuccess)
        let read = device.runInBackground { TokenCode.read() }
        #expect(device.prompts.waitForPending(timeout: .seconds(60))?.reason == "Sign in to me")
        #expect(throws: Never.self) { try device.prompts.answerPending(.match) }
        var answer = read.wait(timeout: .seconds(30))
        // A prompt that came after the deadline is cancelled, so the reader's thread never outlives the test.
        while answer == nil && !device.prompts.pending.isEmpty {
            try? device.prompts.answerPending(.cancel)
            answer = read.wait(timeout: .seconds(5))
        }
        #expect(answer?.0 == errSecSuccess)
        #expect(answer?.1 == "secret")
    }

    @Test func laContextEvaluatesOnTheBoundDevice() async throws {
        let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
        try await device.run {
            let context = LAContext()
            #expect(context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil))
            device.prompts.answerNext(.match)
            let matched = try await context.evaluatePolicy(
                .deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in")
            #expect(matched)
            await #expect(throws: (any Error).self) {
                try await LAContext().evaluatePolicy(
                    .deviceOwnerAuthenticationWithBiometrics, localizedReason: "Sign in")
            }
            #expect(device.prompts.raisedCount == 2)
        }
        let bare = try SimulatedDevice(passcode: "1234")
        bare.run {
            #expect(
                !LAContext().canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: nil), "not enrolled")
        }
    }

    @Test func temporaryDirectoryGoesWithTheDevice() throws {
        var device: SimulatedDevice? = try SimulatedDevice(passcode: "1234")
        let directory = try #require(device?.directory)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(FileManager.default.fileExists(atPath: directory + "/device.key"), "the device key stays inside")
        device?.run { #expect(TokenCode.save("t") == errSecSuccess) }
        device = nil
        #expect(!FileManager.default.fileExists(atPath: directory))
    }
}
