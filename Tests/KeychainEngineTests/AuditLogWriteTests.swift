import Foundation
@testable import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Testing

/// The audit log fails closed (docs/security.md, "Audit log"): a line is written whole or not at all, and a line that
/// cannot be written is an error its caller refuses on, reported once. On a real full filesystem: a small
/// tmpfs (root only, as CI runs), where a line that crosses into a page tmpfs cannot allocate is a short write.
@Suite(.serialized) struct AuditLogWriteTests {
    /// A 64 KiB tmpfs for the test's length.
    final class SmallFilesystem {
        let path = "/tmp/kcfs-auditfs-" + UUID().uuidString.prefix(8)
        init() throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let mounted = Process.launchedWait(
                "/bin/mount", ["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", path])
            guard mounted == 0 else { rmdir(path); throw CocoaError(.fileWriteUnknown) }
        }
        /// Fills every free page with a file (removed by ``free()``).
        func fill() {
            let fd = open(path + "/filler", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            let page = [UInt8](repeating: 0x79, count: 4096)
            while write(fd, page, page.count) > 0 {}
            close(fd)
        }
        func free() { unlink(path + "/filler") }
        deinit {
            umount2(path, Int32(MNT_DETACH))
            rmdir(path)
        }
    }

    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    @Test func aFullFilesystemRefusesTheLineAndLeavesNoTornLine() throws {
        try #require(getuid() == 0, "mounts a tmpfs: runs as root (as CI does)")
        let fs = try SmallFilesystem()
        let reports = Reports()
        let log = try AuditLog(path: fs.path + "/audit.jsonl") { reports.add($0) }
        let requester = AuditLog.Requester(pid: getpid(), uid: getuid(), rule: "r")
        try log.record("open", item: "genp/svc/first/value", status: 0, by: requester)
        fs.fill()
        // Lines fit in the log's last page until one crosses into a page tmpfs has no room for.
        var refused = 0
        for i in 0..<200 {
            do { try log.record("open", item: "genp/svc/acct\(i)/value", status: 0, by: requester) } catch {
                #expect(error.status == SecStatus.notAvailable)
                refused += 1
                if refused == 3 { break }
            }
        }
        #expect(refused == 3, "lines that cannot be written are errors")
        let text = try String(contentsOfFile: log.path, encoding: .utf8)
        #expect(text.hasSuffix("\n"), "no torn line at the end")
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "every line whole: \(line)")
        }
        #expect(reports.all.count == 1 && reports.all[0].contains("cannot be written"), "reported once: \(reports.all)")
        fs.free()
        try log.record("open", item: "genp/svc/after/value", status: 0, by: requester)
        let after = try String(contentsOfFile: log.path, encoding: .utf8)
        let added = after.dropFirst(text.count)
        #expect(
            after.hasPrefix(text) && added.hasSuffix("\n") && added.filter { $0 == "\n" }.count == 1,
            "one whole line follows the last whole one")
        #expect(
            (try? JSONSerialization.jsonObject(with: Data(added.dropLast().utf8)) as? [String: Any])?["item"] as? String
                == "genp/svc/after/value")
        #expect(reports.all.count == 2 && reports.all[1].contains("written again"))
    }
}

extension Process {
    /// Runs `program` to its end (at most 30 s), returning its exit status (-1 if it could not run or was killed).
    static func launchedWait(_ program: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        guard (try? process.run()) != nil else { return -1 }
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate(); return -1 }
        return process.terminationStatus
    }
}
