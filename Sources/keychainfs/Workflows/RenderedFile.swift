import KeychainFSCSystem
import Foundation
import KeychainFSEngine

/// A file `keychainfs inject` writes: created 0600 under a temporary name in the target's directory, filled,
/// synced, then renamed over the target, so readers see the old file or the whole new one, never a part.
/// The file carries an xattr marking it as ours; an existing file without it is not replaced unless forced.
enum RenderedFile {
    /// The xattr that marks a file written by inject (its value: the template's path, or "-").
    static let marker = "user.keychainfs.rendered-from"

    enum Failure: Error, CustomStringConvertible {
        case notOurs(String)
        case notRegular(String)
        case system(String, Int32)

        var description: String {
            switch self {
            case .notOurs(let path): "\(path) exists and was not written by keychainfs inject; --force replaces it"
            case .notRegular(let message): message
            case .system(let what, let code): "\(what): \(String(cString: strerror(code)))"
            }
        }
    }

    /// Whether `path` may be replaced: it does not exist, or carries the marker.
    static func mayReplace(_ path: String) -> Bool {
        var st = stat()
        guard lstat(path, &st) == 0 else { return errno == ENOENT }
        return getxattr(path, marker, nil, 0) >= 0
    }

    /// Writes `bytes` to `path` atomically with mode 0600; never over a FIFO, a device, a socket or a
    /// directory, even forced (``OutsideFile/checkReplaceable(_:)``).
    static func write(_ bytes: [UInt8], to path: String, source: String, force: Bool) throws(Failure) {
        if !force && !mayReplace(path) { throw .notOurs(path) }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var template = Array((directory + "/." + url.lastPathComponent + ".keychainfs-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }  // mkstemp makes it 0600
        guard fd >= 0 else { throw .system("cannot create a file in \(directory)", errno) }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var renamed = false
        defer {
            close(fd)
            if !renamed { unlink(temporary) }
        }
        guard fchmod(fd, 0o600) == 0 else { throw .system("chmod \(temporary)", errno) }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .system("write \(temporary)", errno) }
            written += n
        }
        // Best effort: a filesystem without user xattrs still gets the file; replacing it later needs --force.
        _ = fsetxattr(fd, marker, source, source.utf8.count, 0)
        guard fsync(fd) == 0 else { throw .system("fsync \(temporary)", errno) }
        // Checked last, just before the rename that would replace a device node.
        do { try OutsideFile.checkReplaceable(path) } catch { throw .notRegular(error.message) }
        guard rename(temporary, path) == 0 else { throw .system("rename to \(path)", errno) }
        renamed = true
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY)
        if directoryFD >= 0 { fsync(directoryFD); close(directoryFD) }
    }
}
