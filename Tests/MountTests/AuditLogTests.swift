import Foundation
import Testing
import KeychainFSTestSupport

/// The audit log (docs/spec.md §8): a line per open of a secret through the mount, per SecItem call through the
/// daemon and per device command; never a value; it follows rotation on SIGHUP.
@Suite struct AuditLogTests {
    static let secret = "audit-secret-7f3c"

    func lines(_ path: String) -> [[String: Any]] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    @Test func opensCallsAndDeviceCommandsAreRecordedWithoutValues() throws {
        let root = TestDirectory.root + "/kcfs-audit-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let log = root + "/audit.jsonl"
        let m = try MountedVault(mountArguments: ["--audit-log", log])
        let value = m.makeItem(service: "svc", account: "acct") + "/value"
        #expect(FS.write(value, Self.secret) == 0)
        #expect(FS.text(value) == Self.secret)
        let found = Command.run(
            MountedVault.binary, ["find-generic-password", "-s", "svc", "-a", "acct", "-w"],
            environment: ["KEYCHAIN_VAULT": m.vault])
        #expect(found.stdout == Self.secret + "\n")
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        #expect(FS.read(value).errno == EACCES)

        let recorded = lines(log)
        let opens = recorded.filter {
            $0["operation"] as? String == "open" && $0["item"] as? String == "genp/svc/acct/value"
        }
        #expect(
            opens.contains { $0["status"] as? Int == 0 && ($0["executable"] as? String ?? "").hasSuffix("xctest") },
            "this test's own open, with its executable")
        #expect(
            opens.count == 2, "the write's open and the read's; the attempt while locked is refused before any open")
        #expect(
            recorded.contains {
                $0["operation"] as? String == "item.copy-matching" && $0["item"] as? String == "genp/svc/acct"
                    && ($0["executable"] as? String ?? "").hasSuffix("keychainfs")
            })
        #expect(recorded.contains { $0["operation"] as? String == "device.lock" && $0["status"] as? Int == 0 })
        #expect(recorded.allSatisfy { $0["time"] is String && $0["pid"] is Int && $0["uid"] is Int })
        let raw = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(!raw.contains(Self.secret) && !raw.contains("1234"), "no value and no passcode in the log")
        let mode = try FileManager.default.attributesOfItem(atPath: log)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // Rotation: the old file keeps its lines, the next ones go to a new file at the same path.
        try FileManager.default.moveItem(atPath: log, toPath: log + ".1")
        let pid = try #require(m.daemonPID)
        kill(pid, SIGHUP)
        #expect(m.wait(5) { FileManager.default.fileExists(atPath: log) }, "reopened on SIGHUP")
        try expectSuccess(m.device("status"))
        #expect(m.wait(5) { lines(log).contains { $0["operation"] as? String == "device.status" } })
        #expect(m.isMounted, "SIGHUP with an audit log does not unmount")
    }

    /// On a full filesystem, a read that cannot be recorded is refused, through the mount
    /// (EIO) and the control socket, and daemon.log says why; once there is room, reads are recorded again.
    @Test func aReadThatCannotBeRecordedIsRefused() throws {
        try #require(getuid() == 0, "mounts a tmpfs: runs as root (as CI does)")
        let root = "/tmp/kcfs-auditfs-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { umount2(root, Int32(MNT_DETACH)); rmdir(root) }
        try expectSuccess(Command.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", root]))
        let log = root + "/audit.jsonl"
        let m = try MountedVault(mountArguments: ["--audit-log", log])
        defer { m.close() }
        let value = m.makeItem(service: "svc", account: "acct") + "/value"
        #expect(FS.write(value, Self.secret) == 0)
        #expect(FS.text(value) == Self.secret)
        // Fill every page, then the log's own last page, with a filler file that grows until nothing fits.
        let filler = open(root + "/filler", O_WRONLY | O_CREAT, 0o600)
        let page = [UInt8](repeating: 0x79, count: 4096)
        while write(filler, page, page.count) > 0 {}
        close(filler)
        // Lines still fit in the log's last page for a while; from the first that does not, every read is refused.
        var untilRefused = 0
        while untilRefused < 100, FS.read(value).errno == 0 { untilRefused += 1 }
        #expect(untilRefused < 100, "a read whose line cannot be written is refused")
        var refused = 0
        for _ in 0..<60 where FS.read(value).errno == EIO { refused += 1 }
        #expect(refused == 60, "\(refused) of 60 refused with EIO")
        // A control line is shorter or longer than the mount's (the executable's path, the pid): it may
        // still fit in the log's last bytes; each that fits is recorded, and from the first that does not,
        // the socket refuses too.
        var found: CommandResult?
        for _ in 0..<100 {
            found = Command.run(
                MountedVault.binary, ["find-generic-password", "-s", "svc", "-a", "acct", "-w"],
                environment: ["KEYCHAIN_VAULT": m.vault])
            if found?.status != 0 { break }
        }
        #expect(
            found?.status != 0 && found?.stdout.contains(Self.secret) == false,
            "the control socket refuses too: \(found?.stdout ?? "")")
        let daemonLog = (try? String(contentsOfFile: m.vault + "/daemon.log", encoding: .utf8)) ?? ""
        #expect(
            daemonLog.contains("audit log") && daemonLog.contains("cannot be written"),
            "daemon.log says why: \(daemonLog)")
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.hasSuffix("\n") && lines(log).count == text.split(separator: "\n").count, "only whole lines")
        unlink(root + "/filler")
        #expect(FS.text(value) == Self.secret, "recorded again once there is room")
        #expect(lines(log).last?["item"] as? String == "genp/svc/acct/value")
    }

    /// A FIFO at the log's path after rotation: SIGHUP does not block the daemon (lines go on
    /// to the old file, daemon.log says why), and SIGTERM still unmounts. A FIFO there at start is an error.
    @Test func aFIFOAtTheLogsPathNeverHangsTheDaemon() throws {
        let root = "/tmp/kcfs-audit-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let log = root + "/audit.jsonl"
        let m = try MountedVault(mountArguments: ["--audit-log", log])
        defer { m.close() }
        try FileManager.default.moveItem(atPath: log, toPath: log + ".1")
        #expect(mkfifo(log, 0o600) == 0)
        let pid = try #require(m.daemonPID)
        kill(pid, SIGHUP)
        #expect(
            m.wait(5) {
                ((try? String(contentsOfFile: m.vault + "/daemon.log", encoding: .utf8)) ?? "").contains("FIFO")
            },
            "daemon.log says the log was not reopened")
        try expectSuccess(m.device("status"))
        #expect(
            m.wait(5) { lines(log + ".1").contains { $0["operation"] as? String == "device.status" } },
            "lines go on to the old file")
        kill(pid, SIGTERM)
        #expect(m.wait(10) { !m.isMounted && kill(pid, 0) != 0 }, "SIGTERM still unmounts")
        let again = m.remount(["--audit-log", log])
        #expect(again.status != 0 && again.stderr.contains("FIFO"), "a FIFO at start is a clear error: \(again.stderr)")
        #expect(!m.isMounted)
    }
}
