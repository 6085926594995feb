import KeychainFSModel
import Foundation
import KeychainFSSodium

/// The class keys kept for Face ID after a passcode unlock, as the Secure Enclave keeps them on iOS:
/// sealed under a random key that lives in guarded memory and is never written anywhere. A reboot,
/// an enrolment change or a biometry lockout drops it, so a passcode is needed again (docs/spec.md §11).
package struct BiometricEscrow {
    /// iOS asks for the passcode when it has not been used to unlock for 48 hours.
    package static let passcodeInterval: TimeInterval = 48 * 60 * 60

    /// When the passcode unlock that made this escrow happened.
    package let passcodeUnlock: Date
    private let wrappingKey: GuardedKey
    private let sealed: [Accessibility: Data]

    package init(wrapping classKeys: [Accessibility: GuardedKey], passcodeUnlock: Date) {
        let wrappingKey = GuardedKey.random()
        var sealed: [Accessibility: Data] = [:]
        for (a, key) in classKeys {
            sealed[a] = key.withBytes { AEAD.seal($0, key: wrappingKey, associatedData: Self.ad(a)) }
        }
        self.passcodeUnlock = passcodeUnlock
        self.wrappingKey = wrappingKey
        self.sealed = sealed
    }

    /// Fresh copies of the class keys; the caller owns (and wipes) them.
    package func unwrap() throws(KeychainError) -> [(Accessibility, GuardedKey)] {
        var keys: [(Accessibility, GuardedKey)] = []
        for (a, box) in sealed {
            do { keys.append((a, try AEAD.openKey(box, key: wrappingKey, associatedData: Self.ad(a)))) } catch {
                for (_, k) in keys { k.wipe() }
                throw KeychainError(
                    SecStatus.internalError, "the biometric copy of class '\(a.rawValue)' does not open")
            }
        }
        return keys
    }

    package func wipe() { wrappingKey.wipe() }

    private static func ad(_ a: Accessibility) -> Data { Data("keychainfs.biometric-escrow.v1/\(a.rawValue)".utf8) }
}
