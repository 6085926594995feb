import Crypto
import Foundation

/// What the kernel says about a process, as access rules need it: its executable, parent, uid and cgroup
/// (from `/proc`). Read at the moment of the request; a process that has exited has no identity.
struct ProcessIdentity: Sendable {
    let pid: Int32
    /// `/proc/PID/exe`, or nil when it cannot be read (a kernel thread, another user's process).
    let executable: String?
    let parent: Int32?
    /// The cgroup v2 path (`0::/system.slice/backup.service`), or "" when unknown.
    let cgroup: String

    init(pid: Int32) {
        self.pid = pid
        executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        parent = Self.parent(of: pid)
        cgroup = (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? ""
    }

    /// The `PPid:` of `/proc/PID/status`; nil for init or a vanished process.
    private static func parent(of pid: Int32) -> Int32? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("PPid:") }),
              let ppid = Int32(line.dropFirst(5).trimmingCharacters(in: .whitespaces)), ppid > 0 else { return nil }
        return ppid
    }

    /// Whether the process's cgroup path has a component named `unit` (or `unit.service`).
    func isInUnit(_ unit: String) -> Bool {
        cgroup.split(separator: "\n").contains { line in
            line.split(separator: "/").contains { $0 == unit || $0 == unit + ".service" }
        }
    }
}

/// SHA-256 of executables, kept per (device, inode, size, mtime) so a busy caller is hashed once, and a
/// replaced binary is hashed again.
final class ExecutableDigests: Sendable {
    private struct Key: Hashable { let device: UInt64; let inode: UInt64; let size: Int64; let seconds: Int; let nanoseconds: Int }
    private let digests = GenerationalCache<Key, String>(capacity: 256)

    /// The lowercase hex SHA-256 of the process's executable, read through `/proc/PID/exe` (so a
    /// deleted or replaced file is the one the process runs), or nil when it cannot be read.
    func digest(pid: Int32) -> String? {
        let path = "/proc/\(pid)/exe"
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        let key = Key(device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
                      seconds: st.st_mtim.tv_sec, nanoseconds: st.st_mtim.tv_nsec)
        if let known = digests.value(key, generation: 0) { return known }
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        let hex = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        digests.store(hex, for: key, generation: 0)
        return hex
    }
}
