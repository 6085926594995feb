import Foundation
import KeychainEngine

/// One daemon per vault: an exclusive flock on `VAULT/daemon.lock`, held for the daemon's life.
struct VaultLock: ~Copyable {
    private let fd: Int32

    init(_ vault: Vault) throws(KeychainError) {
        fd = open(vault.directory + "/daemon.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw KeychainError(SecStatus.notAvailable, "cannot open \(vault.directory)/daemon.lock") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw KeychainError(SecStatus.notAvailable, "the vault \(vault.directory) is already served by another keychainfs daemon")
        }
    }

    deinit { close(fd) }
}
