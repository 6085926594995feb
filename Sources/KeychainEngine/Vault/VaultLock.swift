import Foundation

/// One engine per vault (a daemon, or a process that opened it in-process): an exclusive flock on
/// `VAULT/daemon.lock`, held while the vault is open, so two lock states never coexist.
public final class VaultLock: Sendable {
    private let fd: Int32

    /// Takes the lock, waiting up to `patience` seconds for another process to let go (an in-process client
    /// holds it for the length of one call), or fails.
    public init(_ vault: Vault, patience: TimeInterval = 0) throws(KeychainError) {
        fd = open(vault.lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "it is a symlink" : String(cString: strerror(errno))
            throw KeychainError(SecStatus.notAvailable, "cannot open \(vault.lockPath): \(reason)")
        }
        let deadline = Date().addingTimeInterval(patience)
        var locked = flock(fd, LOCK_EX | LOCK_NB) == 0
        while !locked && errno == EWOULDBLOCK && Date() < deadline {
            usleep(10_000)
            locked = flock(fd, LOCK_EX | LOCK_NB) == 0
        }
        guard locked else {
            close(fd)
            throw KeychainError(SecStatus.notAvailable, "the vault \(vault.directory) is already open in another keychainfs process")
        }
    }

    deinit { close(fd) }

    /// Whether another process holds `vault` open right now.
    public static func isHeld(_ vault: Vault) -> Bool {
        let fd = open(vault.lockPath, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }
}
