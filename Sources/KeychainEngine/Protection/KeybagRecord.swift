import Foundation
import SodiumCrypto

/// The keybag file's content: wrapped keys and the simulator's persistent settings. It holds no key
/// in the clear: class keys are sealed under a key-encryption key, metadata keys under their class key.
struct KeybagRecord: Codable {
    var format = 1
    /// Argon2id salt; nil when no passcode is set.
    var passcodeSalt: Data?
    var hardness: PasscodeHardness
    /// Sealed class key per accessibility raw value.
    var classKeys: [String: Data] = [:]
    /// Sealed metadata key per accessibility raw value.
    var metadataKeys: [String: Data] = [:]
    var failedAttempts = 0
    var lockedOutUntil: Date?
    var autoLockSeconds: Int?
    /// The simulated biometry (SPEC §11); nil in keybags made before it, meaning never enrolled.
    var biometry: BiometryRecord?
    /// Test devices skip the escalating delays after wrong passcodes.
    var testDevice: Bool
    /// Set by a passcode removal between its keybag write and the deletion of the akpu items; an open that
    /// finds it set finishes the deletion (absent in format-1 keybags).
    var akpuSweepPending: Bool?

    var hasPasscode: Bool { passcodeSalt != nil }

    static func load(from path: String) throws(KeychainError) -> KeybagRecord {
        guard let data = try FileIO.read(path) else {
            throw KeychainError(SecStatus.notAvailable, "keybag not found at \(path)")
        }
        do { return try JSONDecoder().decode(KeybagRecord.self, from: data) } catch {
            throw KeychainError(SecStatus.decode, "the keybag \(path) is damaged or truncated: restore the vault from a backup")
        }
    }

    func save(to path: String, crashPoint: String? = nil) throws(KeychainError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do { data = try encoder.encode(self) } catch { throw KeychainError(SecStatus.internalError, "cannot encode the keybag") }
        try FileIO.writeAtomically(data, to: path, mode: 0o600, crashPoint: crashPoint)
    }
}
