import Foundation

/// This process's view of the mount table (/proc/self/mountinfo), read in one place: the CLI finds a
/// vault's mount and its daemon's state here, the watchdog its mount's FUSE connection.
package enum MountTable {
    package struct Entry: Sendable, Equatable {
        /// The mount's source: a keychainfs mount's vault directory.
        package let vault: String
        package let mountpoint: String
        /// The filesystem type (`fuse.keychainfs`).
        package let type: String
        /// The mounted device, `major:minor` (a FUSE mount's minor is its fusectl connection number).
        package let device: String

        package init(vault: String, mountpoint: String, type: String, device: String) {
            self.vault = vault
            self.mountpoint = mountpoint
            self.type = type
            self.device = device
        }
    }

    /// Every mount, in the order they were made.
    package static func all() -> [Entry] {
        guard let text = readWhole("/proc/self/mountinfo") else { return [] }
        return text.split(separator: "\n").compactMap(parse)
    }

    /// The keychainfs mounts.
    package static func entries() -> [Entry] { all().filter { $0.type == "fuse.keychainfs" } }

    /// One mountinfo line: id, parent, major:minor, root, mount point, options, optional fields, "-",
    /// type, source, super options.
    package static func parse(_ line: Substring) -> Entry? {
        let fields = line.split(separator: " ")
        guard fields.count >= 10, let separator = fields.firstIndex(of: "-"), separator >= 6,
            separator + 2 < fields.count
        else { return nil }
        return Entry(
            vault: unescape(fields[separator + 2]), mountpoint: unescape(fields[4]),
            type: unescape(fields[separator + 1]), device: String(fields[2]))
    }

    package static func entry(mountpoint: String) -> Entry? {
        let path = canonical(mountpoint)
        return entries().last { $0.mountpoint == path }
    }

    package static func isMounted(_ mountpoint: String) -> Bool { entry(mountpoint: mountpoint) != nil }

    /// Whether the mount at `mountpoint` has lost its daemon: the kernel answers ENOTCONN. statvfs (statfs), because
    /// it always asks the daemon (stat may be answered from the kernel's attribute cache).
    package static func isDead(_ mountpoint: String) -> Bool {
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
    package static func canonical(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard let resolved = realpath(absolute, nil) else { return absolute }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The mount table writes space, tab, newline and backslash as octal escapes.
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
