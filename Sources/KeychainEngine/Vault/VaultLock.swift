import Foundation

/// One engine per vault (a daemon, or a process that opened it in-process): an exclusive flock on
/// `VAULT/daemon.lock`, held while the vault is open, so two lock states never coexist.
public final class VaultLock: Sendable {
    private let fd: Int32

    /// Takes the lock, or fails at once if another process holds it.
    public init(_ vault: Vault) throws(KeychainError) {
        fd = open(vault.directory + "/daemon.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw KeychainError(SecStatus.notAvailable, "cannot open \(vault.directory)/daemon.lock") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw KeychainError(SecStatus.notAvailable, "the vault \(vault.directory) is already open in another keychainfs process")
        }
    }

    deinit { close(fd) }
}
