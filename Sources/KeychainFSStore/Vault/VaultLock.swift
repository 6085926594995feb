import KeychainFSModel
import Foundation

/// One engine per vault (a daemon, or a process that opened it in-process): an exclusive flock on
/// `VAULT/daemon.lock`, held while the vault is open, so two lock states never coexist.
///
/// Each holder stamps the file with a fresh random token: a process that finds its own last token
/// there knows nobody else has had the vault since (its cached engine is current).
public final class VaultLock: Sendable {
    private let fd: Int32
    /// The token the previous holder left (0: none).
    public let previousToken: UInt64
    /// This holder's token.
    public let token = UInt64.random(in: 1 ... .max)

    /// Takes the lock, waiting up to `patience` seconds for another process to let go (an in-process client
    /// holds it for the length of one call), or fails.
    public init(_ vault: Vault, patience: TimeInterval = 0) throws(KeychainError) {
        fd = try FileIO.openRegular(vault.lockPath, flags: O_RDWR | O_CREAT, mode: 0o600)
        do {
            try Self.lock(fd, vault.directory, patience: patience)
        } catch {
            close(fd)
            throw error
        }
        var previous: UInt64 = 0
        previousToken = pread(fd, &previous, 8, 0) == 8 ? previous : 0
        var stamp = token
        _ = pwrite(fd, &stamp, 8, 0)
    }

    deinit { close(fd) }

    /// Takes the exclusive lock on `fd`, polling every 10 ms for up to `patience` seconds.
    static func lock(_ fd: Int32, _ directory: String, patience: TimeInterval) throws(KeychainError) {
        let deadline = Date().addingTimeInterval(patience)
        var locked = flock(fd, LOCK_EX | LOCK_NB) == 0
        while !locked && errno == EWOULDBLOCK && Date() < deadline {
            usleep(10_000)
            locked = flock(fd, LOCK_EX | LOCK_NB) == 0
        }
        guard locked else {
            throw KeychainError(
                SecStatus.notAvailable, "the vault \(directory) is already open in another keychainfs process")
        }
    }

    /// Whether another process holds `vault` open right now.
    public static func isHeld(_ vault: Vault) -> Bool {
        guard let fd = try? FileIO.openRegular(vault.lockPath, flags: O_RDWR) else { return false }
        defer { close(fd) }
        return flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }
}
