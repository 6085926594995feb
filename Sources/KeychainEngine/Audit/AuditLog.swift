import Foundation

/// The audit log (SPEC §8, opt-in `--audit-log FILE`): one JSON line per open of a secret through the
/// mount, per SecItem call through the API and per device command, with time, pid, uid, executable, the
/// item (class and path, never a value), the operation, the OSStatus and the access rule that granted it.
/// Each line is one `write(2)` to a descriptor opened O_APPEND (so concurrent writers and rotation never
/// interleave or lose a line), never through a symlink, 0600; ``reopen()`` (on SIGHUP) follows rotation.
/// A line is written in the caller's thread: a read waits at most for that one write.
public final class AuditLog: @unchecked Sendable {
    public let path: String
    private let lock = NSLock()
    private var fd: Int32

    /// Opens (creating 0600) the log at `path`.
    public init(path: String) throws(KeychainError) {
        self.path = URL(fileURLWithPath: path).standardizedFileURL.path
        fd = try Self.open(self.path)
    }

    deinit { close(fd) }

    private static func open(_ path: String) throws(KeychainError) -> Int32 {
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw KeychainError(SecStatus.param, "cannot open the audit log \(path): \(String(cString: strerror(errno)))")
        }
        return fd
    }

    /// After rotation (`mv log log.1; kill -HUP daemon`): later lines go to a new file at `path`.
    public func reopen() {
        guard let fresh = try? Self.open(path) else { return }
        lock.withLock {
            close(fd)
            fd = fresh
        }
    }

    /// Who asked: the process and the rule that granted its access groups, if any.
    public struct Requester: Sendable {
        public var pid: Int32
        public var uid: UInt32
        public var rule: String?

        public init(pid: Int32, uid: UInt32, rule: String? = nil) {
            self.pid = pid
            self.uid = uid
            self.rule = rule
        }
    }

    /// Appends one line. `item` is a class and path (`genp/svc/acct`) or nil; never pass a value.
    public func record(_ operation: String, item: String?, status: OSStatus, by requester: Requester) {
        var line: [String: Any] = [
            "time": Self.timestamp(), "pid": Int(requester.pid), "uid": Int(requester.uid),
            "executable": (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(requester.pid)/exe")) ?? "",
            "operation": operation, "status": Int(status),
        ]
        if let item { line["item"] = item }
        if let rule = requester.rule { line["rule"] = rule }
        guard var data = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]) else { return }
        data.append(0x0A)
        lock.withLock {
            _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
    }

    private static func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }
}
