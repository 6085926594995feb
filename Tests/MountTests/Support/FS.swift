import KeychainFSCSystem
import Foundation

/// Thin POSIX wrappers that report errno, so tests can check exact error codes.
enum FS {
    static func read(_ path: String) -> Result<Data, Errno> {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return .failure(Errno(errno)) }
        defer { close(fd) }
        return readAll(fd)
    }

    static func readAll(_ fd: Int32) -> Result<Data, Errno> {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 { return .failure(Errno(errno)) }
            if n == 0 { return .success(data) }
            data.append(contentsOf: buffer[0..<n])
        }
    }

    /// open(O_WRONLY|O_TRUNC) + write + close; close's error (the commit) counts.
    @discardableResult
    static func write(_ path: String, _ data: Data, flags: Int32 = O_WRONLY | O_TRUNC) -> Int32 {
        let fd = open(path, flags)
        guard fd >= 0 else { return errno }
        var failure: Int32 = 0
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 { failure = errno; return }
                offset += n
            }
        }
        if close(fd) != 0 && failure == 0 { failure = errno }
        return failure
    }

    static func write(_ path: String, _ text: String) -> Int32 { write(path, Data(text.utf8)) }

    static func text(_ path: String) -> String? {
        guard case .success(let data) = read(path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func errnoOf(_ result: Int32) -> Int32 { result == 0 ? 0 : errno }

    static func mkdir(_ path: String) -> Int32 { errnoOf(Glibc.mkdir(path, 0o700)) }
    static func rmdir(_ path: String) -> Int32 { errnoOf(Glibc.rmdir(path)) }
    static func unlink(_ path: String) -> Int32 { errnoOf(Glibc.unlink(path)) }
    static func rename(_ from: String, _ to: String) -> Int32 { errnoOf(Glibc.rename(from, to)) }
    static func create(_ path: String) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT, 0o600)
        if fd < 0 { return errno }
        close(fd)
        return 0
    }

    static func list(_ path: String) -> Result<[String], Errno> {
        guard let dir = opendir(path) else { return .failure(Errno(errno)) }
        defer { closedir(dir) }
        var names: [String] = []
        errno = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        if errno != 0 { return .failure(Errno(errno)) }
        return .success(names.sorted())
    }

    static func inode(_ path: String) -> UInt64? {
        var st = stat()
        return stat(path, &st) == 0 ? UInt64(st.st_ino) : nil
    }

    static func mode(_ path: String) -> UInt32? {
        var st = stat()
        return stat(path, &st) == 0 ? st.st_mode : nil
    }

    static func getxattr(_ path: String, _ name: String) -> Result<Data, Errno> {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = KeychainFSCSystem.getxattr(path, name, &buffer, buffer.count)
        return n < 0 ? .failure(Errno(errno)) : .success(Data(buffer[0..<n]))
    }

    static func xattrText(_ path: String, _ name: String) -> String? {
        guard case .success(let data) = getxattr(path, name) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func setxattr(_ path: String, _ name: String, _ value: String) -> Int32 {
        errnoOf(KeychainFSCSystem.setxattr(path, name, value, value.utf8.count, 0))
    }

    static func removexattr(_ path: String, _ name: String) -> Int32 {
        errnoOf(KeychainFSCSystem.removexattr(path, name))
    }

    static func listxattr(_ path: String) -> [String] {
        var buffer = [CChar](repeating: 0, count: 65536)
        let n = KeychainFSCSystem.listxattr(path, &buffer, buffer.count)
        guard n > 0 else { return [] }
        return buffer[0..<n].split(separator: 0).map {
            String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}

/// An errno as a comparable error.
struct Errno: Error, Equatable, CustomStringConvertible {
    let code: Int32
    init(_ code: Int32) { self.code = code }
    var description: String { String(cString: strerror(code)) }
}

extension Result where Failure == Errno {
    var errno: Int32 {
        if case .failure(let e) = self { return e.code }
        return 0
    }
}
