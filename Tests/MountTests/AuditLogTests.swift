import Foundation
import Testing
import TestSupport

/// The audit log (SPEC §8): a line per open of a secret through the mount, per SecItem call through the
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
        let found = Command.run(MountedVault.binary, ["find-generic-password", "-s", "svc", "-a", "acct", "-w"],
                                environment: ["KEYCHAIN_VAULT": m.vault])
        #expect(found.stdout == Self.secret + "\n")
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        #expect(FS.read(value).errno == EACCES)

        let recorded = lines(log)
        let opens = recorded.filter { $0["operation"] as? String == "open" && $0["item"] as? String == "genp/svc/acct/value" }
        #expect(opens.contains { $0["status"] as? Int == 0 && ($0["executable"] as? String ?? "").hasSuffix("xctest") },
                "this test's own open, with its executable")
        #expect(opens.count == 2, "the write's open and the read's; the attempt while locked is refused before any open")
        #expect(recorded.contains { $0["operation"] as? String == "item.copy-matching" && $0["item"] as? String == "genp/svc/acct"
            && ($0["executable"] as? String ?? "").hasSuffix("keychainfs") })
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
}
