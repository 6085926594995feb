import Foundation
import KeychainTesting
import Security
import Testing

/// Launch states as iOS has them, with the errors the real device gives, every time.
@Suite struct LaunchStateTests {
    static func save(_ token: String, account: String, _ accessible: CFString) -> OSStatus {
        let add: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: TokenCode.service,
            kSecAttrAccount as String: account, kSecValueData as String: Data(token.utf8),
            kSecAttrAccessible as String: accessible,
        ]
        return SecItemAdd(add as CFDictionary, nil)
    }

    @Test func prewarmAndBackgroundWake() throws {
        let device = try SimulatedDevice(passcode: "1234")
        try device.run {
            #expect(Self.save("a", account: "afu", kSecAttrAccessibleAfterFirstUnlock) == errSecSuccess)
            #expect(Self.save("w", account: "wu", kSecAttrAccessibleWhenUnlocked) == errSecSuccess)

            try device.launch(.prewarm)
            #expect(device.status.state == .beforeFirstUnlock)
            #expect(
                TokenCode.read(account: "afu").0 == errSecInteractionNotAllowed, "prewarmed before the first unlock")
            #expect(TokenCode.read(account: "wu").0 == errSecInteractionNotAllowed)

            try device.launch(.backgroundWhileLocked)
            #expect(device.status.state == .locked)
            #expect(TokenCode.read(account: "afu") == (errSecSuccess, "a"), "after the first unlock")
            #expect(TokenCode.read(account: "wu").0 == errSecInteractionNotAllowed, "locked")

            try device.launch(.foreground)
            #expect(TokenCode.read(account: "wu") == (errSecSuccess, "w"))
        }
    }

    @Test func withoutAPasscodeEveryLaunchIsUnlocked() throws {
        let device = try SimulatedDevice()
        try device.run {
            #expect(Self.save("w", account: "wu", kSecAttrAccessibleWhenUnlocked) == errSecSuccess)
            try device.launch(.prewarm)
            #expect(TokenCode.read(account: "wu") == (errSecSuccess, "w"))
        }
    }

    @Test func launchUsesTheChangedPasscode() throws {
        let device = try SimulatedDevice(passcode: "1234")
        try device.changePasscode(from: "1234", to: "5678")
        try device.launch(.prewarm)
        try device.launch(.foreground)
        #expect(!device.isLocked)
    }
}
