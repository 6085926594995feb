import Foundation
import KeychainFSModel
import KeychainFSSodium
import KeychainFSStore

/// A passcode's key-encryption key: its Argon2id key entangled with the device key, and in a vault whose
/// device key the TPM seals, with the TPM's share too (``PasscodeShare``, docs/tpm.md).
extension Keychain {
    /// The KEK of a new passcode and, with a TPM, its share sealed under the passcode's authorization.
    func newPasscodeKEK(_ passcode: Data, salt: Data, hardness: PasscodeHardness) throws(KeychainError)
        -> (kek: GuardedKey, share: Data?, escrow: Data?)
    {
        let stretched = try Keybag.stretch(passcode, salt: salt, hardness: hardness)
        defer { stretched.wipe() }
        guard let deviceKeyTPM else {
            return (Keybag.passcodeKEK(stretched: stretched, deviceKey: deviceKey), nil, nil)
        }
        let made = try PasscodeShare.create(
            stretched: stretched, deviceKey: deviceKey, binding: deviceKeyTPM,
            recoveryPublicKey: try vault.recoveryPublicKey(deviceKey: deviceKey))
        return (made.kek, made.blob, made.escrow)
    }

    /// The KEK of an attempted passcode; with a TPM share, as the TPM answers (which counts a wrong one).
    func attemptedPasscodeKEK(_ passcode: Data, salt: Data, record: KeybagRecord) throws(KeychainError)
        -> PasscodeShare.Answer
    {
        let stretched = try Keybag.stretch(passcode, salt: salt, hardness: record.hardness)
        defer { stretched.wipe() }
        guard let share = record.passcodeTPMShare else {
            return .kek(Keybag.passcodeKEK(stretched: stretched, deviceKey: deviceKey))
        }
        guard let deviceKeyTPM else {
            throw KeychainError(
                SecStatus.decode, "the keybag's passcode has a share in a TPM, and this vault's config names none")
        }
        return try PasscodeShare.answer(stretched: stretched, deviceKey: deviceKey, blob: share, binding: deviceKeyTPM)
    }
}
