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

    /// A fresh share for the passcode whose Argon2id key is `stretched`: its sealed blob, the KEK, and the
    /// share sealed to the recovery key's public key when the vault has one (the escrow).
    package static func create(
        stretched: GuardedKey, deviceKey: GuardedKey, binding: TPMBinding, recoveryPublicKey: Data?
    ) throws(KeychainError) -> (blob: Data, kek: GuardedKey, escrow: Data?) {
        let tpm = try TPMConnection(tcti: binding.tctiInForce)
        let share = GuardedKey.random()
        defer { share.wipe() }
        var authorization = Self.authorization(stretched)
        defer { Sodium.wipe(&authorization) }
        let blob = try tpm.seal(share, authorization: authorization)
        let escrow = recoveryPublicKey.flatMap { SealedBox.seal(share, to: $0) }
        return (Data(blob), kek(share: share, stretched: stretched, deviceKey: deviceKey), escrow)
    }

    /// A recovery onto another TPM: the share from its escrow, checked with `passcode` by `opens` (the
    /// keybag's unlock with the KEK), sealed in `binding`'s TPM under the passcode's authorization.
    static func reseal(
        _ record: KeybagRecord, escrow secret: GuardedKey, deviceKey: GuardedKey, binding: TPMBinding,
        passcode: () throws -> Data, opens: (GuardedKey) throws(KeychainError) -> Void
    ) throws(KeychainError) -> Data {
        guard let escrow = record.passcodeShareEscrow, let salt = record.passcodeSalt else {
            throw KeychainError(
                SecStatus.notAvailable,
                "the passcode's TPM share has no recovery copy (the passcode was set before the recovery key): items of "
                    + "classes A and C come back only from a backup")
        }
        let share: GuardedKey
        do { share = try SealedBox.openKey(escrow, secret: secret) } catch {
            throw KeychainError(SecStatus.authFailed, "the recovery key does not open the passcode's share")
        }
        defer { share.wipe() }
        var typed: Data
        do { typed = try passcode() } catch {
            throw KeychainError(SecStatus.param, "the vault has a passcode: it is needed to move its share (\(error))")
        }
        defer { Sodium.wipe(&typed) }
        let stretched = try Keybag.stretch(typed, salt: salt, hardness: record.hardness)
        defer { stretched.wipe() }
        let kek = kek(share: share, stretched: stretched, deviceKey: deviceKey)
        defer { kek.wipe() }
        try opens(kek)
        var authorization = Self.authorization(stretched)
        defer { Sodium.wipe(&authorization) }
        return Data(try TPMConnection(tcti: binding.tctiInForce).seal(share, authorization: authorization))
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
