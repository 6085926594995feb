import Foundation

/// Small file helpers for the vault's own files.
enum FileIO {
    /// Writes `data` to a temporary file, fsyncs it and renames it over `path`, so readers see the old or the new file.
    static func writeAtomically(_ data: Data, to path: String, mode: mode_t) throws(KeychainError) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw KeychainError(SecStatus.notAvailable, "cannot write \(path): \(String(cString: strerror(errno)))") }
        let written = data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return true
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard written, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw KeychainError(SecStatus.notAvailable, "cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
