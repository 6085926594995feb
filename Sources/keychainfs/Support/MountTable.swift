import Foundation

/// The keychainfs entries of /proc/self/mounts: the source field is the vault directory.
enum MountTable {
    struct Entry { let vault: String; let mountpoint: String }

    static func entries() -> [Entry] {
        guard let text = readWhole("/proc/self/mounts") else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count >= 3, fields[2] == "fuse.keychainfs" else { return nil }
            return Entry(vault: unescape(fields[0]), mountpoint: unescape(fields[1]))
        }
    }

    static func entry(mountpoint: String) -> Entry? {
        let path = canonical(mountpoint)
        return entries().last { $0.mountpoint == path }
    }

    static func isMounted(_ mountpoint: String) -> Bool { entry(mountpoint: mountpoint) != nil }

    /// Whether the mount at `mountpoint` has lost its daemon: the kernel answers ENOTCONN. statvfs (statfs), because
    /// it always asks the daemon (stat may be answered from the kernel's attribute cache).
    static func isDead(_ mountpoint: String) -> Bool {
        var st = statvfs()
        return statvfs(mountpoint, &st) != 0 && errno == ENOTCONN
    }

    /// Reads a /proc file to its end: its size is 0 to stat, and one read returns one page of it
    /// (a host with containers or snaps has many pages of mounts).
    private static func readWhole(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(contentsOf: buffer[0..<n])
        }
    }

    /// Absolute path with symlinks resolved where possible.
    static func canonical(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let resolved = realpath(absolute, nil) else { return absolute }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// /proc/mounts writes space, tab, newline and backslash as octal escapes.
    private static func unescape(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        let raw = Array(field.utf8)
        var i = 0
        while i < raw.count {
            if raw[i] == 0x5C, i + 3 < raw.count,
                let value = UInt8(String(decoding: raw[i + 1...i + 3], as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                i += 4
            } else {
                bytes.append(raw[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
