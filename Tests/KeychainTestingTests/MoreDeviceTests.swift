import Foundation
import KeychainTesting
import Security
import Testing

/// SecKey and re-enrolment through the kit, and the auto-lock setting.
@Suite struct MoreDeviceTests {
    @Test func permanentKeyStaysOnItsDevice() throws {
        let mine = try SimulatedDevice(), other = try SimulatedDevice()
        let tag = Data("kit.key".utf8)
        let find: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnRef as String: true,
        ]
        mine.run {
            let attributes: [String: Any] = [
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                kSecPrivateKeyAttrs as String: [
                    kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
                ],
            ]
            #expect(SecKeyCreateRandomKey(attributes as CFDictionary, nil) != nil)
            #expect(SecItemCopyMatching(find as CFDictionary, nil) == errSecSuccess)
        }
        other.run { #expect(SecItemCopyMatching(find as CFDictionary, nil) == errSecItemNotFound) }
    }

    @Test func reEnrolmentVoidsCurrentSetItems() throws {
        let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
        device.run {
            let currentSet = SecAccessControlCreateWithFlags(
                nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .biometryCurrentSet, nil)
            #expect(TokenCode.save("t", access: currentSet) == errSecSuccess)
            device.prompts.answerNext(.match)
            #expect(TokenCode.read() == (errSecSuccess, "t"))
        }
        try device.biometry.enroll()
        device.run {
            device.prompts.answerNext(.match)
            #expect(TokenCode.read().0 != errSecSuccess, "enrolled anew: the item's face set is gone")
        }
    }

    @Test func biometryWithoutPasscodeIsAClearError() {
        #expect { try SimulatedDevice(biometryEnrolled: true) } throws: {
            ($0 as? KeychainError)?.status == errSecParam
        }
    }

    @Test func autoLockSetting() throws {
        let device = try SimulatedDevice(passcode: "1234")
        #expect(device.autoLock == nil)
        try device.setAutoLock(.seconds(300))
        #expect(device.autoLock == .seconds(300))
        #expect(throws: KeychainError.self) { try device.setAutoLock(.zero) }
        try device.setAutoLock(nil)
        #expect(device.autoLock == nil)
    }
}
