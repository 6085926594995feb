import Foundation
import SodiumCrypto

/// The device key (Apple's UID): 32 random bytes made with the vault, in a 0600 file that may live
/// outside the vault directory. Without it, nothing in the vault can be decrypted.
enum DeviceKey {
    static func create(at path: String) throws(KeychainError) {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw .param("a device key already exists at \(path)")
        }
        var bytes = Sodium.randomBytes(GuardedKey.byteCount)
        defer { Sodium.wipe(&bytes) }
        try FileIO.writeAtomically(bytes, to: path, mode: 0o600)
    }

    static func load(from path: String) throws(KeychainError) -> GuardedKey {
        guard var bytes = FileManager.default.contents(atPath: path) else {
            throw KeychainError(SecStatus.notAvailable, "device key not found at \(path): a vault is unreadable without the device key it was made with")
        }
        defer { Sodium.wipe(&bytes) }
        do { return try GuardedKey.copying(bytes) } catch {
            throw KeychainError(SecStatus.decode, "device key at \(path) is not \(GuardedKey.byteCount) bytes")
        }
    }
}
