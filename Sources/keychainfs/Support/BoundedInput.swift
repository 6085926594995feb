import Foundation

/// What a user or another program hands the CLI (a file, standard input), read with a size limit: at most
/// `limit` bytes are kept and one more is read to tell that there is more, so `/dev/zero` or a huge file
/// is refused at once instead of filling memory.
enum BoundedInput {
    /// The bytes of `handle` to its end; nil when there are more than `limit`.
    static func read(_ handle: FileHandle, limit: Int) throws -> Data? {
        try read(handle.fileDescriptor, name: "standard input", limit: limit)
    }

    /// The bytes of `fd` to its end; nil when there are more than `limit`. A failed read is a sentence
    /// naming `name` and the system's reason (`/proc/self/mem` is a regular file whose read fails with EIO).
    private static func read(_ fd: Int32, name: String, limit: Int) throws -> Data? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while data.count <= limit {
            let n = Glibc.read(fd, &buffer, min(buffer.count, limit + 1 - data.count))
            if n < 0 {
                if errno == EINTR { continue }
                throw CLIError("cannot read \(name): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        return data.count <= limit ? data : nil
    }

    /// The file at `path` (standard input for nil or `-`); nil when it is larger than `limit`. Throws, naming
    /// why, when it cannot be opened or read or is not a regular file.
    static func read(path: String?, limit: Int) throws -> Data? {
        guard let path, path != "-" else { return try read(.standardInput, limit: limit) }
        // Without blocking (a FIFO's open waits for a writer), and only a regular file: a FIFO, a device such
        // as /dev/zero or a directory is refused at once. A symlink the user named is followed to its file.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw CLIError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            throw CLIError("\(path) is not a regular file")
        }
        return try read(fd, name: path, limit: limit)
    }

    /// "1 MiB" for a limit in whole MiB, else its bytes.
    static func describe(_ limit: Int) -> String { limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit) bytes" }
}
