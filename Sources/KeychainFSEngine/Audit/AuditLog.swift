import KeychainFSModel
import KeychainFSStore
import Foundation

/// The audit log (docs/spec.md §8, opt-in `--audit-log FILE`): one JSON line per open of a secret through the
/// mount, per SecItem call through the API and per device command, with time, pid, uid, executable, the
/// item (class and path, never a value), the operation, the OSStatus and the access rule that granted it.
/// Each line is one `write(2)` to a descriptor opened O_APPEND (so rotation never interleaves or loses a
/// line), never through a symlink, never a FIFO or device (opened O_NONBLOCK, then checked to be a regular
/// file), 0600; ``reopen()`` (on SIGHUP) follows rotation. A line is written in the caller's thread: a
/// read waits at most for that one write.
///
/// It fails closed (docs/security.md): ``record(_:item:status:by:)`` throws when its line cannot be written
/// whole, and callers refuse the operation. A short write (a full filesystem) is cut back with
/// `ftruncate` to the size before it, under the lock: this daemon is the log's only writer, so that size
/// is where its line began even with O_APPEND; a line is in the file whole or not at all.
public final class AuditLog: @unchecked Sendable {
    public let path: String
    private let lock = NSLock()
    private var fd: Int32
    /// Whether the last line failed (so a failure is reported once, and the recovery once).
    private var failing = false
    private let report: @Sendable (String) -> Void

    /// Opens (creating 0600) the log at `path`. `report` hears each change between writing and failing
    /// (for the daemon's log); never a value.
    public init(path: String, report: @escaping @Sendable (String) -> Void = { _ in }) throws(KeychainError) {
        self.path = URL(fileURLWithPath: path).standardizedFileURL.path
        self.report = report
        fd = try Self.open(self.path)
    }

    deinit { close(fd) }

    private static func open(_ path: String) throws(KeychainError) -> Int32 {
        do {
            return try FileIO.openRegular(path, flags: O_WRONLY | O_APPEND | O_CREAT, mode: 0o600)
        } catch {
            throw KeychainError(SecStatus.param, "audit log: \(error.message)")
        }
    }

    /// After rotation (`mv log log.1; kill -HUP daemon`): later lines go to a new file at `path`. When
    /// the path cannot be opened (or is no regular file) lines keep going to the old file, and it says so.
    public func reopen() {
        let fresh: Int32
        do { fresh = try Self.open(path) } catch {
            report("audit log not reopened, lines still go to the file opened before: \(error.message)")
            return
        }
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
        /// Whether that rule is a boundary or advisory.
        public var assurance: Assurance?

        public init(pid: Int32, uid: UInt32, rule: String? = nil, assurance: Assurance? = nil) {
            self.pid = pid
            self.uid = uid
            self.rule = rule
            self.assurance = assurance
        }

        /// The requester `caller` is, as process `pid` of `uid`.
        public init(pid: Int32, uid: UInt32, caller: Caller?) {
            self.init(pid: pid, uid: uid, rule: caller?.grantedBy, assurance: caller?.assurance)
        }
    }

    /// Appends one line, whole or not at all. `item` is a class and path (`genp/svc/acct`) or nil; never
    /// pass a value. Throws errSecNotAvailable when the line could not be written: the caller refuses.
    public func record(_ operation: String, item: String?, status: OSStatus, by requester: Requester)
        throws(KeychainError)
    {
        var line: [String: Any] = [
            "time": Self.timestamp(), "pid": Int(requester.pid), "uid": Int(requester.uid),
            "executable": PeerProcess.executable(of: requester.pid) ?? "",
            "operation": operation, "status": Int(status),
        ]
        if let item { line["item"] = item }
        if let rule = requester.rule { line["rule"] = rule }
        if let assurance = requester.assurance { line["assurance"] = assurance.rawValue }
        guard var data = try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]) else {
            throw KeychainError(SecStatus.notAvailable, "the audit line could not be encoded")
        }
        data.append(0x0A)
        let failure: String? = lock.withLock {
            let outcome = append(data)
            defer { failing = outcome != nil }
            if let outcome, !failing {
                report(
                    "audit log \(path) cannot be written (\(outcome)): operations that must be recorded are refused until it can"
                )
            } else if outcome == nil, failing {
                report("audit log \(path) is written again")
            }
            return outcome
        }
        if let failure {
            throw KeychainError(SecStatus.notAvailable, "the audit log cannot be written (\(failure)): refused")
        }
    }

    /// Writes `data` at the end of the log; on failure, cuts back what part of it was written. Under the lock.
    private func append(_ data: Data) -> String? {
        let start = lseek(fd, 0, SEEK_END)
        guard start >= 0 else { return String(cString: strerror(errno)) }
        var written = 0
        while written < data.count {
            let n = data.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if n > 0 { written += n; continue }
            if n < 0 && errno == EINTR { continue }
            let reason = n == 0 ? "nothing written" : String(cString: strerror(errno))
            if written > 0 && ftruncate(fd, start) != 0 {
                return reason + "; a partial line could not be cut back: " + String(cString: strerror(errno))
            }
            return written > 0 ? reason + " after \(written) of \(data.count) bytes (cut back)" : reason
        }
        return nil
    }

    private static func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date())
    }
}
