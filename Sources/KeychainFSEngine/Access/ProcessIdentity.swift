import KeychainFSModel
import KeychainFSStore
import Crypto
import Foundation
import Synchronization

/// What the kernel says about a process, as access rules need it: its executable, parent and cgroup
/// (from `/proc`). Read at the moment of the request; a process that has exited has no identity.
struct ProcessIdentity: Sendable {
    let pid: Int32
    /// The executed file itself: `stat` of `/proc/PID/exe` follows the kernel's link to the file the
    /// process runs, in whatever namespace it runs; nil when it cannot be read (a kernel thread, another
    /// user's process). Never the path `/proc/PID/exe` reads as: a process in a mount namespace of its
    /// own chooses what is at that path.
    let executableFile: FileIdentity?
    let parent: Int32?
    /// The cgroup v2 path (`0::/system.slice/backup.service`), or "" when unknown.
    let cgroup: String

    init(pid: Int32) {
        self.pid = pid
        executableFile = FileIdentity(path: "/proc/\(pid)/exe")
        parent = Self.parent(of: pid)
        cgroup = (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? ""
    }

    /// The `PPid:` of `/proc/PID/status`; nil for init or a vanished process.
    static func parent(of pid: Int32) -> Int32? {
        statusField("PPid", of: pid).flatMap { Int32($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    /// A field of `/proc/PID/status` (`TracerPid`), trimmed; nil when unreadable.
    private static func statusField(_ name: String, of pid: Int32) -> String? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") })
        else { return nil }
        return line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
    }

    /// The path `/proc/PID/exe` reads as, which a process in its own mount namespace chooses: matched
    /// only with the test switch ``AccessPolicy/testSwitch`` on.
    func executablePath() -> String? { PeerProcess.executable(of: pid) }

    /// Whether the process runs the file at `path` as the daemon sees it: the same device and inode.
    func runs(_ path: String) -> Bool {
        guard let executableFile, let wanted = FileIdentity(path: path) else { return false }
        return executableFile == wanted
    }

    /// Why the process's executable does not vouch for the code it runs, or nil when it does
    /// (docs/threat-model.md, "Verifiable"): a process in another mount or user namespace than the daemon's (where
    /// the libraries, the loader and the paths are its own), one started with the dynamic loader told to
    /// load other code (`LD_PRELOAD`, `LD_LIBRARY_PATH`, `LD_AUDIT`), one being traced, or one whose
    /// state cannot be read. Executable and SHA-256 rules do not match such a process.
    func unverifiable() -> String? {
        for namespace in ["mnt", "user"] {
            guard let own = Self.namespace(namespace, of: "self"), let theirs = Self.namespace(namespace, of: "\(pid)")
            else {
                return "its \(namespace) namespace cannot be read"
            }
            if own != theirs { return "it runs in another \(namespace) namespace" }
        }
        guard let tracer = Self.statusField("TracerPid", of: pid) else { return "its status cannot be read" }
        if tracer != "0" { return "it is being traced" }
        guard let environment = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ")) else {
            return "its environment cannot be read"
        }
        for entry in environment.split(separator: 0) {
            for variable in Self.loaderVariables where entry.starts(with: Array((variable + "=").utf8)) {
                return "it was started with \(variable)"
            }
        }
        return nil
    }

    /// The dynamic loader's variables that load code a program did not ask for.
    static let loaderVariables = ["LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT"]

    /// `/proc/WHO/ns/NAME` (`mnt:[4026531841]`), or nil.
    private static func namespace(_ name: String, of who: String) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(who)/ns/\(name)")
    }

    /// Whether the process belongs to the systemd unit `unit` (docs/spec.md §12): of the system manager
    /// (`/system.slice/…/backup.service`) or, for `user`, of the caller's own user manager
    /// (`/user.slice/user-UID.slice/user@UID.service/…/backup.service`). See ``SystemdUnit``.
    func isInUnit(_ unit: String, user: UInt32?) -> Bool {
        guard let found = SystemdUnit(cgroupFile: cgroup) else { return false }
        return found.name == SystemdUnit.normalized(unit) && found.userManager == user
    }
}

/// A file as the kernel identifies it, whatever path reached it.
public struct FileIdentity: Hashable, Sendable {
    public let device: UInt64
    public let inode: UInt64

    /// The file at `path`, following links (`/proc/PID/exe` is one); nil when it cannot be stat'ed.
    public init?(path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }
}

/// SHA-256 of executables, kept per (device, inode, size, mtime, ctime) so a busy caller is hashed once,
/// and a binary replaced or rewritten in place is hashed again: a writer can restore the size and the
/// modification time (`touch -r`), never the change time, which every write and every `touch` sets to now.
final class ExecutableDigests: Sendable {
    private struct Key: Hashable {
        let device: UInt64; let inode: UInt64; let size: Int64; let seconds: Int; let nanoseconds: Int
        let changeSeconds: Int; let changeNanoseconds: Int
    }
    private let digests = GenerationalCache<Key, String>(capacity: 256)
    /// Whether the change time is part of the key; off only with the executable-identity test switch.
    private let keysByChangeTime: Bool

    init(keysByChangeTime: Bool = true) { self.keysByChangeTime = keysByChangeTime }

    /// The lowercase hex SHA-256 of the process's executable, read through `/proc/PID/exe` (so a
    /// deleted or replaced file is the one the process runs), or nil when it cannot be read.
    func digest(pid: Int32) -> String? {
        let path = "/proc/\(pid)/exe"
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        let key = Key(
            device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
            seconds: st.st_mtim.tv_sec, nanoseconds: st.st_mtim.tv_nsec,
            changeSeconds: keysByChangeTime ? st.st_ctim.tv_sec : 0,
            changeNanoseconds: keysByChangeTime ? st.st_ctim.tv_nsec : 0)
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

/// Reports processes that run a rule's executable but were refused it, once a minute per rule and
/// reason at most (a refused reader in a loop must not flood the log).
final class UnverifiedCallers: Sendable {
    private let reported = Mutex<[String: Date]>([:])
    private let report: @Sendable (String) -> Void

    init(report: @escaping @Sendable (String) -> Void) { self.report = report }

    func note(rule: String, reason: String, pid: Int32) {
        let key = rule + "\u{0}" + reason
        let now = Date()
        let due = reported.withLock { seen -> Bool in
            if let last = seen[key], now.timeIntervalSince(last) < 60 { return false }
            if seen.count > 256 { seen.removeAll() }
            seen[key] = now
            return true
        }
        if due { report("access rule '\(rule)' not applied to pid \(pid), which runs its executable: \(reason)") }
    }
}
