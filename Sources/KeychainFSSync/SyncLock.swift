import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation

/// One sync step of a vault at a time, across threads and processes (the daemon, in-process CLI runs): an
/// exclusive flock on `VAULT/sync/lock`. Two git runs in one clone race on its refs and index ("cannot lock
/// ref"), so a second sync waits its turn, up to a deadline.
package enum SyncLock {
    /// How long a sync waits for the one before it (a sync is a handful of git calls, each with its own deadline).
    package static let patience: TimeInterval = 180

    /// Runs `body` holding the vault's sync lock; errSecNotAvailable if another sync holds it past `patience`.
    package static func holding<T>(
        _ vault: Vault, patience: TimeInterval = patience,
        _ body: () throws(KeychainError) -> T
    ) throws(KeychainError) -> T {
        let directory = vault.directory + "/sync"
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw KeychainError(SecStatus.io, "cannot create \(directory): \(String(cString: strerror(errno)))")
        }
        let fd = try FileIO.openRegular(directory + "/lock", flags: O_RDWR | O_CREAT, mode: 0o600)
        defer { close(fd) }  // closing the only descriptor releases the lock
        let deadline = Date().addingTimeInterval(patience)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw KeychainError(SecStatus.io, "cannot lock \(directory)/lock: \(String(cString: strerror(errno)))")
            }
            guard Date() < deadline else {
                throw KeychainError(
                    SecStatus.notAvailable,
                    "another sync of this vault is still running after \(Int(patience)) s; try again later")
            }
            usleep(20_000)
        }
        return try body()
    }
}
