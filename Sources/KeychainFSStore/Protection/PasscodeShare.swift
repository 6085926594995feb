import Foundation
import KeychainFSModel
import KeychainFSSodium
import KeychainFSTPM

/// The TPM's share of a passcode key (docs/tpm.md, "The passcode, enforced by the TPM"). In a vault whose
/// device key the TPM seals, a passcode's KEK also needs 32 random bytes sealed in the TPM under an
/// authorization derived from the passcode: only the TPM can check a guess, and it counts each wrong one in
/// its dictionary-attack protection, so neither a copied vault nor the device key alone allows guessing
/// offline. The keybag keeps the sealed share (`passcodeTPMShare`); a share removed or swapped only makes
/// every passcode wrong.
package enum PasscodeShare {
    /// What the TPM answered to a passcode.
    package enum Answer {
        case kek(GuardedKey)
        /// The authorization is wrong: the passcode is not correct (the TPM counted it).
        case wrongPasscode
        /// The TPM refuses every authorization for now; it forgives one failure every `interval` seconds.
        case lockedOut(interval: Int?)
    }

    static let authorizationContext = "keychainfs.passcode.tpm-authorization.v1"
    static let kekContext = "keychainfs.kek.passcode.tpm.v1"

    /// A fresh share for the passcode whose Argon2id key is `stretched`: its sealed blob and the KEK.
    package static func create(stretched: GuardedKey, deviceKey: GuardedKey, binding: TPMBinding)
        throws(KeychainError) -> (blob: Data, kek: GuardedKey)
    {
        let tpm = try TPMConnection(tcti: binding.tctiInForce)
        let share = GuardedKey.random()
        defer { share.wipe() }
        var authorization = Self.authorization(stretched)
        defer { Sodium.wipe(&authorization) }
        let blob = try tpm.seal(share, authorization: authorization)
        return (Data(blob), kek(share: share, stretched: stretched, deviceKey: deviceKey))
    }

    /// The TPM's answer to the passcode whose Argon2id key is `stretched`, with the share in `blob`.
    package static func answer(stretched: GuardedKey, deviceKey: GuardedKey, blob: Data, binding: TPMBinding)
        throws(KeychainError) -> Answer
    {
        let tpm = try TPMConnection(tcti: binding.tctiInForce)
        var authorization = Self.authorization(stretched)
        defer { Sodium.wipe(&authorization) }
        let share: GuardedKey
        do { share = try tpm.unseal(Array(blob), authorization: authorization) } catch {
            switch error.kind {
            case .wrongAuthorization: return .wrongPasscode
            case .lockout: return .lockedOut(interval: tpm.lockoutInterval)
            case .notThisTPM:
                throw KeychainError(
                    SecStatus.decode,
                    "the passcode's share in the keybag is not \(binding.tctiInForce)'s, or it is damaged (\(error))")
            case .bootStateChanged, .other:
                throw KeychainError(
                    SecStatus.internalComponent, "\(binding.tctiInForce) cannot check the passcode: \(error)")
            }
        }
        defer { share.wipe() }
        return .kek(kek(share: share, stretched: stretched, deviceKey: deviceKey))
    }

    /// The object's authorization (32 bytes, SHA-256's size): a keyed hash of the passcode's Argon2id key.
    static func authorization(_ stretched: GuardedKey) -> Data {
        KeyDerivation.keyedHash([Data(authorizationContext.utf8)], key: stretched, outputBytes: 32)
    }

    static func kek(share: GuardedKey, stretched: GuardedKey, deviceKey: GuardedKey) -> GuardedKey {
        let inner = KeyDerivation.subkey(of: share, context: kekContext, input: stretched)
        defer { inner.wipe() }
        return KeyDerivation.subkey(of: deviceKey, context: kekContext, input: inner)
    }
}
