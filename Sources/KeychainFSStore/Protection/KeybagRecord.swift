import KeychainFSModel
import Foundation
import KeychainFSSodium

/// The keybag file's content: wrapped keys and the simulator's persistent settings. It holds no key
/// in the clear: class keys are sealed under a key-encryption key, metadata keys under their class key.
package struct KeybagRecord: Codable {
    package var format = 1
    /// Argon2id salt; nil when no passcode is set.
    package var passcodeSalt: Data?
    /// The TPM's share of the passcode key, sealed (``PasscodeShare``); nil without a TPM.
    package var passcodeTPMShare: Data?
    /// The same share sealed to the recovery key (``PasscodeShare``); nil without one.
    package var passcodeShareEscrow: Data?
    /// The passcode's KEK sealed to boot-state PCRs (``BootUnlockSeal``); nil unless boot unlock is on.
    package var bootUnlock: BootUnlockSeal?
    package var hardness: PasscodeHardness
    /// Sealed class key per accessibility raw value.
    package var classKeys: [String: Data] = [:]
    /// Sealed metadata key per accessibility raw value.
    package var metadataKeys: [String: Data] = [:]
    package var failedAttempts = 0
    package var lockedOutUntil: Date?
    package var autoLockSeconds: Int?
    /// The simulated biometry (docs/spec.md §11); nil in keybags made before it, meaning never enrolled.
    package var biometry: BiometryRecord?
    /// Test devices skip the escalating delays after wrong passcodes.
    package var testDevice: Bool
    /// Set by a passcode removal between its keybag write and the deletion of the akpu items; an open that
    /// finds it set finishes the deletion (absent in format-1 keybags).
    package var akpuSweepPending: Bool?

    package var hasPasscode: Bool { passcodeSalt != nil }

    package static func load(from path: String) throws(KeychainError) -> KeybagRecord {
        guard let data = try FileIO.read(path) else {
            throw KeychainError(SecStatus.notAvailable, "keybag not found at \(path)")
        }
        do { return try JSONDecoder().decode(KeybagRecord.self, from: data) } catch {
            throw KeychainError(
                SecStatus.decode, "the keybag \(path) is damaged or truncated: restore the vault from a backup")
        }
    }

    package func save(to path: String, crashPoint: String? = nil) throws(KeychainError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do { data = try encoder.encode(self) } catch {
            throw KeychainError(SecStatus.internalError, "cannot encode the keybag")
        }
        try FileIO.writeAtomically(data, to: path, mode: 0o600, crashPoint: crashPoint)
    }
}
