import KeychainFSModel
import Foundation

/// ``VaultLock`` as an in-process client takes it: for one call at a time, its file kept open between
/// calls and its token written only when another holder came in between. Opening, stamping and closing
/// the file at every call (ten system calls, one a write) was about a tenth of an in-process SecItem call;
/// this is five (measured). Not thread-safe: its owner makes one call at a time.
///
/// The file is opened again when it is no longer the one at the vault's path (the vault was removed or
/// made again: a lock on the old file would not keep a daemon out) and in a forked child (which shares
/// its parent's open file, and with it the parent's lock).
public final class VaultCallLock: @unchecked Sendable {
    private let path: String
    /// The vault's directory, for the error that names it (worked out once: `NSString`'s path functions were
    /// a tenth of an in-process lookup when called every time).
    private let directory: String
    private var fd: Int32 = -1
    private var opened: (device: dev_t, inode: ino_t, pid: pid_t) = (0, 0, 0)
    /// The token this process last wrote (0: none).
    private var ownToken: UInt64 = 0

    public init(_ vault: Vault) {
        path = vault.lockPath
        directory = vault.directory
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Takes the lock, waiting up to `patience` seconds for another process to let go, or throws as
    /// ``VaultLock/init(_:patience:)`` does. True if nobody else held the vault since this process's last
    /// call (an engine it kept is current).
    public func take(patience: TimeInterval) throws(KeychainError) -> Bool {
        try openIfStale()
        try VaultLock.lock(fd, directory, patience: patience)
        var found: UInt64 = 0
        if ownToken != 0, pread(fd, &found, 8, 0) == 8, found == ownToken { return true }
        ownToken = UInt64.random(in: 1 ... .max)
        var stamp = ownToken
        _ = pwrite(fd, &stamp, 8, 0)
        return false
    }

    /// Lets go of the lock (the file stays open).
    public func release() {
        flock(fd, LOCK_UN)
    }

    private func openIfStale() throws(KeychainError) {
        if fd >= 0 {
            var st = stat()
            if opened.pid == getpid(), lstat(path, &st) == 0, st.st_dev == opened.device, st.st_ino == opened.inode {
                return
            }
            close(fd)  // in a child, its own descriptor only: the parent's lock stays the parent's
            fd = -1
            ownToken = 0
        }
        let descriptor = try FileIO.openRegular(path, flags: O_RDWR | O_CREAT, mode: 0o600)
        var st = stat()
        fstat(descriptor, &st)
        fd = descriptor
        opened = (st.st_dev, st.st_ino, getpid())
    }
}
