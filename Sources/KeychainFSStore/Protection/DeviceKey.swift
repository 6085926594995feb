import KeychainFSModel
import Foundation
import KeychainFSSodium

/// The device key (Apple's UID): 32 random bytes made with the vault, in a 0600 file that may live
/// outside the vault directory. Without it, nothing in the vault can be decrypted.
package enum DeviceKey {
    /// Makes the key file; anything already at `path` (a symlink included) is refused, never overwritten.
    package static func create(at path: String) throws(KeychainError) {
        var bytes = Sodium.randomBytes(GuardedKey.byteCount)
        defer { Sodium.wipe(&bytes) }
        do {
            try FileIO.writeExclusively(bytes, to: path, mode: 0o600)
        } catch let error where error.status == SecStatus.param {
            throw .param("a device key (or something else) already exists at \(path)")
        }
    }

    package static func load(from path: String) throws(KeychainError) -> GuardedKey {
        guard var bytes = try FileIO.read(path) else {
            throw KeychainError(
                SecStatus.notAvailable,
                "device key not found at \(path): a vault is unreadable without the device key it was made with")
        }
        defer { Sodium.wipe(&bytes) }
        do { return try GuardedKey.copying(bytes) } catch {
            throw KeychainError(SecStatus.decode, "device key at \(path) is not \(GuardedKey.byteCount) bytes")
        }
    }
}
