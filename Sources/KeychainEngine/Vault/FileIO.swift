import Foundation
import SodiumCrypto

/// Small file helpers for the vault's own files. Nothing here follows a symlink or reuses a file it
/// did not create: a link planted at a final or temporary name can neither redirect a write nor be read.
enum FileIO {
    /// Writes `data` to a fresh temporary file, fsyncs it and renames it over `path`, so readers see the
    /// old or the new file. A symlink at `path` is replaced, never followed. `crashPoint` names the moment
    /// the new file is complete but not yet in place (``CrashPoint``).
    static func writeAtomically(_ data: Data, to path: String, mode: mode_t, crashPoint: String? = nil) throws(KeychainError) {
        let temporary = try writeTemporary(data, near: path, mode: mode)
        if let crashPoint { CrashPoint.reach(crashPoint) }
        guard rename(temporary, path) == 0 else {
            let failure = errno
            unlink(temporary)
            throw failed("write", path, failure)
        }
    }

    /// Writes `data` to `path`, which must not exist (not even as a dangling symlink): made complete in a
    /// temporary file, then hard-linked into place, which fails if anything is there.
    static func writeExclusively(_ data: Data, to path: String, mode: mode_t) throws(KeychainError) {
        let temporary = try writeTemporary(data, near: path, mode: mode)
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 else {
            let failure = errno
            if failure == EEXIST { throw .param("\(path) already exists") }
            throw failed("write", path, failure)
        }
    }

    /// Creates an empty file at `path` with `mode`; fails if anything, a symlink included, is there.
    static func createExclusively(_ path: String, mode: mode_t) throws(KeychainError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failed("create", path, errno) }
        close(fd)
    }

    /// The content of `path`, nil if it does not exist; refuses a symlink.
    static func read(_ path: String) throws(KeychainError) -> Data? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw failed("read", path, errno)
        }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 { if errno == EINTR { continue }; throw failed("read", path, errno) }
            if n == 0 { return data }
            data.append(contentsOf: buffer[0..<n])
        }
    }

    /// A complete, fsynced file at a fresh random name beside `path` (O_EXCL|O_NOFOLLOW: never an existing file).
    private static func writeTemporary(_ data: Data, near path: String, mode: mode_t) throws(KeychainError) -> String {
        let suffix = Sodium.randomBytes(8).map { String(format: "%02x", $0) }.joined()
        let temporary = path + ".tmp-" + suffix
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failed("write", path, errno) }
        let written = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return true
        }
        let failure = errno
        let synced = written && fsync(fd) == 0
        close(fd)
        guard synced else {
            unlink(temporary)
            throw failed("write", path, written ? errno : failure)
        }
        return temporary
    }

    private static func failed(_ verb: String, _ path: String, _ code: Int32) -> KeychainError {
        let reason = code == ELOOP ? "it is a symlink, which keychainfs never follows in a vault" : String(cString: strerror(code))
        return KeychainError(SecStatus.notAvailable, "cannot \(verb) \(path): \(reason)")
    }
}
