import KeychainFSModel
import Foundation

/// Files a user names on the command line (a backup to restore, a backup to write), handled by the client
/// that was given the path, never by the daemon: read only if it is a regular file of bounded size (not a
/// FIFO, a device, a directory or a symlink, which could block, never end or point elsewhere), written only
/// as a new file.
public enum OutsideFile {
    /// The whole content of the regular file at `path`, at most `limit` bytes; `what` names it in errors.
    public static func read(_ path: String, limit: Int, what: String) throws(KeychainError) -> Data {
        do {
            let fd = try FileIO.openRegular(path, flags: O_RDONLY, verb: "read the \(what)")
            defer { close(fd) }
            return try FileIO.readAll(fd, path, limit: limit, what: what)
        } catch {
            throw KeychainError(SecStatus.param, error.message)
        }
    }

    /// Refuses `path` as a file to write over when it is a FIFO, a device, a socket or a directory (a rename
    /// would replace a device node, as root too): only a missing name, a regular file or a symlink (which
    /// the rename replaces, never follows) is written over.
    public static func checkReplaceable(_ path: String) throws(KeychainError) {
        do { try FileIO.refuseSpecialFile(path, verb: "write") } catch {
            throw KeychainError(SecStatus.param, error.message)
        }
    }

    /// Replaces the file at `path` with `data`, atomically, as a 0600 file: written beside it under a fresh
    /// name (O_EXCL|O_NOFOLLOW) and renamed over it, so a symlink at `path` is replaced, never followed
    /// (git's merge driver writes its result over the file git names).
    public static func replace(_ data: Data, at path: String) throws(KeychainError) {
        try checkReplaceable(path)
        try FileIO.writeAtomically(data, to: path, mode: 0o600)
    }

    /// Writes `data` to `path` as a new 0600 file (complete or absent; nothing existing, a symlink included, is replaced).
    public static func create(_ data: Data, at path: String) throws(KeychainError) {
        try FileIO.writeExclusively(data, to: path, mode: 0o600)
    }
}
