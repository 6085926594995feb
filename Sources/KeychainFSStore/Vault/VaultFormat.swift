import KeychainFSModel
import Foundation

/// The vault's on-disk format (docs/spec.md §8): recorded in `vault.json` and, from format 2 on, in the item
/// database's migration table. A newer format than this build knows is refused; an older one is migrated.
public enum VaultFormat {
    /// The format this build writes. 1: the release of 2026-11-23 (device key inside the vault by
    /// default, no migration table). 2: migrations recorded in the database, the format in `vault_format`,
    /// an akpu sweep flag in the keybag. 3: each row's metadata box authenticates the row's shape (whether
    /// it holds a secret, and its length); rows of format 2 are sealed again as their class becomes available.
    public static let current = 3

    /// Refuses a vault written by a newer keychainfs, naming both versions.
    package static func check(_ format: Int, at path: String) throws(KeychainError) {
        guard format <= current else {
            throw KeychainError(
                SecStatus.wrongSecVersion,
                "\(path) records vault format \(format), newer than this keychainfs reads (format \(current)): upgrade keychainfs to open this vault"
            )
        }
        guard format >= 1 else {
            throw KeychainError(SecStatus.decode, "\(path) records an impossible vault format \(format)")
        }
    }
}
