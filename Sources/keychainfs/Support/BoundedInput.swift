import Foundation

/// What a user or another program hands the CLI (a file, standard input), read with a size limit: at most
/// `limit` bytes are kept and one more is read to tell that there is more, so `/dev/zero` or a huge file
/// is refused at once instead of filling memory.
enum BoundedInput {
    /// The bytes of `handle` to its end; nil when there are more than `limit`.
    static func read(_ handle: FileHandle, limit: Int) throws -> Data? {
        var data = Data()
        while data.count <= limit, let chunk = try handle.read(upToCount: min(1 << 16, limit + 1 - data.count)),
            !chunk.isEmpty
        {
            data += chunk
        }
        return data.count <= limit ? data : nil
    }

    /// The file at `path` (standard input for nil or `-`); nil when it is larger than `limit`. Throws when it
    /// cannot be opened or read.
    static func read(path: String?, limit: Int) throws -> Data? {
        guard let path, path != "-" else { return try read(.standardInput, limit: limit) }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CocoaError(.fileReadNoSuchFile) }
        defer { try? handle.close() }
        return try read(handle, limit: limit)
    }

    /// "1 MiB" for a limit in whole MiB, else its bytes.
    static func describe(_ limit: Int) -> String { limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit) bytes" }
}
