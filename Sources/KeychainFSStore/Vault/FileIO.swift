import KeychainFSModel
import Foundation
import KeychainFSSodium

/// Small file helpers for the vault's own files. Nothing here follows a symlink or reuses a file it
/// did not create: a link planted at a final or temporary name can neither redirect a write nor be read.
package enum FileIO {
    /// Writes `data` to a fresh temporary file, fsyncs it and renames it over `path`, so readers see the
    /// old or the new file, then fsyncs the directory: when this returns the new file survives a power cut
    /// (docs/filesystem.md). A symlink at `path` is replaced, never followed. `crashPoint` names the moment the new
    /// file is complete but not yet in place (``CrashPoint``).
    package static func writeAtomically(_ data: Data, to path: String, mode: mode_t, crashPoint: String? = nil)
        throws(KeychainError)
    {
        let temporary = try writeTemporary(data, near: path, mode: mode)
        if let crashPoint { CrashPoint.reach(crashPoint) }
        guard rename(temporary, path) == 0 else {
            let failure = errno
            unlink(temporary)
            throw failed("write", path, failure)
        }
        try syncDirectory(of: path)
    }

    /// Writes `data` to `path`, which must not exist (not even as a dangling symlink): made complete in a
    /// temporary file, then hard-linked into place, which fails if anything is there.
    package static func writeExclusively(_ data: Data, to path: String, mode: mode_t) throws(KeychainError) {
        let temporary = try writeTemporary(data, near: path, mode: mode)
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 else {
            let failure = errno
            if failure == EEXIST { throw .param("\(path) already exists") }
            throw failed("write", path, failure)
        }
        try syncDirectory(of: path)
    }

    /// Creates an empty file at `path` with `mode`; fails if anything, a symlink included, is there.
    package static func createExclusively(_ path: String, mode: mode_t) throws(KeychainError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failed("create", path, errno) }
        close(fd)
        try syncDirectory(of: path)
    }

    /// fsyncs the directory holding `path`, so that a name just made, renamed or linked there survives a
    /// power cut (a file's own fsync does not persist its directory entry). Skipped for throwaway vaults.
    package static func syncDirectory(of path: String) throws(KeychainError) {
        guard !ThrowawayDirectories.contains(fileAt: path) else { return }
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw failed("sync the directory of", path, errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw failed("sync the directory of", path, errno) }
    }

    /// Opens `path` without ever blocking on it or following a link (docs/security.md): O_NONBLOCK (a FIFO
    /// with no writer or reader cannot hang the open), O_NOFOLLOW, and the opened file must be a regular
    /// file (a FIFO, device, socket or directory is an error); blocking mode is restored for the caller.
    /// Throws errSecNotAvailable naming the path and what it is.
    package static func openRegular(_ path: String, flags: Int32, mode: mode_t = 0, verb: String = "open")
        throws(KeychainError) -> Int32
    {
        guard let fd = try openRegularIfPresent(path, flags: flags, mode: mode, verb: verb) else {
            throw failed(verb, path, ENOENT)
        }
        return fd
    }

    /// ``openRegular(_:flags:mode:)``, or nil when nothing is at `path`.
    package static func openRegularIfPresent(_ path: String, flags: Int32, mode: mode_t = 0, verb: String = "open")
        throws(KeychainError) -> Int32?
    {
        // Not even opened when it is seen to be something else (opening a device can act on it); a
        // symlink is left to O_NOFOLLOW's error, and what is swapped in meanwhile to fstat below.
        try refuseSpecialFile(path, verb: verb)
        var st = stat()
        let fd = open(path, flags | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, mode)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw failed(verb, path, errno)
        }
        guard fstat(fd, &st) == 0 else {
            let failure = errno
            close(fd)
            throw failed(verb, path, failure)
        }
        guard st.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw KeychainError(
                SecStatus.notAvailable, "cannot \(verb) \(path): it is \(kind(st.st_mode)), not a regular file")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// Throws errSecNotAvailable, naming the path and what it is, when something is at `path` that is neither
    /// a regular file nor a symlink (a FIFO, a device, a socket, a directory): never opened nor replaced.
    package static func refuseSpecialFile(_ path: String, verb: String) throws(KeychainError) {
        var st = stat()
        if lstat(path, &st) == 0, st.st_mode & S_IFMT != S_IFREG, st.st_mode & S_IFMT != S_IFLNK {
            throw KeychainError(
                SecStatus.notAvailable, "cannot \(verb) \(path): it is \(kind(st.st_mode)), not a regular file")
        }
    }

    /// What a file that is not regular is, for an error message.
    package static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symlink"
        default: "not a regular file"
        }
    }

    /// The content of `path`, nil if it does not exist; refuses a symlink and anything not a regular file.
    package static func read(_ path: String) throws(KeychainError) -> Data? {
        guard let fd = try openRegularIfPresent(path, flags: O_RDONLY, verb: "read") else { return nil }
        defer { close(fd) }
        return try readAll(fd, path, limit: Int.max, what: "file")
    }

    /// ``read(_:)`` of a file from outside, refused (errSecNotAvailable naming it, `what` it is and `limit`)
    /// when it is larger than `limit` bytes: its size is taken from the opened file before a byte is read.
    package static func read(_ path: String, limit: Int, what: String) throws(KeychainError) -> Data? {
        guard let fd = try openRegularIfPresent(path, flags: O_RDONLY, verb: "read the \(what)") else { return nil }
        defer { close(fd) }
        return try readAll(fd, path, limit: limit, what: what)
    }

    /// The rest of the regular file open at `fd`, at most `limit` bytes: refused before reading when fstat
    /// says it is larger, and held to the limit while it is read (a file that grows meanwhile).
    static func readAll(_ fd: Int32, _ path: String, limit: Int, what: String) throws(KeychainError) -> Data {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw failed("read the \(what)", path, errno) }
        guard st.st_size <= limit else {
            throw KeychainError(
                SecStatus.notAvailable, "the \(what) \(path) is \(st.st_size) bytes; at most \(limit) bytes are read")
        }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = Glibc.read(fd, &buffer, limit == Int.max ? buffer.count : min(buffer.count, limit + 1 - data.count))
            if n < 0 { if errno == EINTR { continue }; throw failed("read the \(what)", path, errno) }
            if n == 0 { return data }
            data.append(contentsOf: buffer[0..<n])
            guard data.count <= limit else {
                throw KeychainError(SecStatus.notAvailable, "the \(what) \(path) is larger than \(limit) bytes")
            }
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
        let synced = written && (ThrowawayDirectories.contains(fileAt: path) || fsync(fd) == 0)
        close(fd)
        guard synced else {
            unlink(temporary)
            throw failed("write", path, written ? errno : failure)
        }
        return temporary
    }

    private static func failed(_ verb: String, _ path: String, _ code: Int32) -> KeychainError {
        let reason =
            code == ELOOP
            ? "it is a symlink, which keychainfs never follows in a vault" : String(cString: strerror(code))
        return KeychainError(SecStatus.notAvailable, "cannot \(verb) \(path): \(reason)")
    }
}
