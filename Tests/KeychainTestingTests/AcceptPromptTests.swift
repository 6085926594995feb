import Foundation
import KeychainTesting
import Security
import Testing

/// `prompts.automatic = .accept`: each prompt answered the way it can be satisfied, by the engine's
/// prompt queue (the same mode as `keychainfs device prompt auto accept`).
@Suite struct AcceptPromptTests {
    static func access(_ flags: SecAccessControlCreateFlags) -> SecAccessControl? {
        SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, nil)
    }

    @Test func acceptOpensWhatMatchCannot() throws {
        let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
        device.run {
            #expect(TokenCode.save("by-face", account: "face", access: Self.access(.biometryAny)) == errSecSuccess)
            #expect(
                TokenCode.save("by-passcode", account: "passcode", access: Self.access(.devicePasscode))
                    == errSecSuccess)
            #expect(TokenCode.save("either", account: "presence", access: Self.access(.userPresence)) == errSecSuccess)
            device.prompts.automatic = .match
            #expect(TokenCode.read(account: "passcode").0 == errSecAuthFailed, "a face cannot answer a passcode prompt")
            device.prompts.automatic = .accept
            #expect(device.prompts.automatic == .accept)
            #expect(TokenCode.read(account: "face") == (errSecSuccess, "by-face"))
            #expect(TokenCode.read(account: "passcode") == (errSecSuccess, "by-passcode"))
            #expect(TokenCode.read(account: "presence") == (errSecSuccess, "either"))
            #expect(device.prompts.raisedCount == 4)
        }
    }

    @Test func acceptTypesThePasscodeWhenFaceIDIsLockedOut() throws {
        let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
        device.run {
            #expect(TokenCode.save("either", access: Self.access(.userPresence)) == errSecSuccess)
            device.prompts.automatic = .noMatch
            for _ in 1...5 { #expect(TokenCode.read().0 != errSecSuccess) }
            device.prompts.automatic = .accept
            #expect(TokenCode.read() == (errSecSuccess, "either"), "only the passcode is left, and accept types it")
            device.prompts.automatic = .match
            #expect(TokenCode.read() == (errSecSuccess, "either"), "the passcode ended the biometry lockout")
        }
    }

    @Test func acceptCannotOpenWhatNothingCanSatisfy() throws {
        let device = try SimulatedDevice(passcode: "1234")  // no face enrolled
        device.prompts.automatic = .accept
        device.run {
            #expect(TokenCode.save("by-face", access: Self.access(.biometryAny)) == errSecSuccess)
            #expect(TokenCode.read().0 == errSecAuthFailed, "no face is enrolled: nothing to accept with")
        }
    }
}
