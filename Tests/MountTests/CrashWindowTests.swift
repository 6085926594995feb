import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// kill -9 inside the crash windows of device commands, renames and deletes (RELIABILITY.md): each window is hit on
/// purpose by a named crash point (KEYCHAINFS_CRASH_AT), the test checks the point was reached, and after a
/// remount the vault shows the old state or the new one, never neither.
@Suite(.serialized) struct CrashWindowTests {
    /// A test-device vault whose daemon dies at `point`; returns it and the file the point's name is written to.
    static func vaultDying(at point: String) throws -> (MountedVault, String) {
        let report = TestDirectory.root + "/kcfs-crash-" + UUID().uuidString.prefix(8)
        let m = try MountedVault(mountEnvironment: ["KEYCHAINFS_CRASH_AT": point, "KEYCHAINFS_CRASH_REPORT": report])
        return (m, report)
    }

    /// Checks the daemon died at `point`, clears the dead mount and mounts again without crash points.
    static func expectCrashed(_ m: MountedVault, at point: String, report: String) throws {
        defer { unlink(report) }
        let reached = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        #expect(reached == point, "the crash point \(point) was reached")
        m.unmount()
        try expectSuccess(m.remount())
    }

    static func add(_ m: MountedVault, _ account: String, _ secret: String, _ accessibility: String = "ck") throws {
        try m.addItem(account: account, secret: secret, accessible: accessibility)
    }

    /// The passcode that unlocks the vault now (nil: none of them), trying each in turn.
    static func workingPasscode(_ m: MountedVault, _ candidates: [String]) -> String? {
        candidates.first { m.device("unlock", passcode: $0).succeeded }
    }

    @Test(arguments: ["passcode.change.beforeKeybagRename", "passcode.change.afterKeybagWrite"])
    func passcodeChange(point: String) throws {
        let (m, report) = try Self.vaultDying(at: point)
        defer { m.close() }
        try expectSuccess(m.device("passcode", "set", passcode: "1111"))
        try Self.add(m, "a", "secret-a", "ak")
        #expect(!m.device("passcode", "change", passcode: "1111\n2222").succeeded, "the daemon died during the change")
        try Self.expectCrashed(m, at: point, report: report)
        let expected = point.hasSuffix("beforeKeybagRename") ? "1111" : "2222"
        #expect(Self.workingPasscode(m, ["2222", "1111"]) == expected, "exactly the old or the new passcode unlocks")
        #expect(FS.text(m.path("genp/svc/a/value")) == "secret-a")
    }

    @Test(arguments: ["passcode.set.beforeKeybagRename", "passcode.set.afterKeybagWrite"])
    func passcodeSet(point: String) throws {
        let (m, report) = try Self.vaultDying(at: point)
        defer { m.close() }
        try Self.add(m, "a", "secret-a", "ak")
        #expect(!m.device("passcode", "set", passcode: "1111").succeeded)
        try Self.expectCrashed(m, at: point, report: report)
        let status = m.device("status").stdout
        if point.hasSuffix("beforeKeybagRename") {
            #expect(status.contains("no-passcode"), "\(status)")
        } else {
            #expect(status.contains("before-first-unlock"), "\(status)")
            try expectSuccess(m.device("unlock", passcode: "1111"))
        }
        #expect(FS.text(m.path("genp/svc/a/value")) == "secret-a")
    }

    @Test(arguments: [
        "passcode.remove.beforeKeybagRename", "passcode.remove.afterKeybagWrite", "passcode.remove.beforeItemsCommit",
    ])
    func passcodeRemove(point: String) throws {
        let (m, report) = try Self.vaultDying(at: point)
        defer { m.close() }
        try expectSuccess(m.device("passcode", "set", passcode: "1111"))
        try Self.add(m, "kept", "secret-kept", "ak")
        try Self.add(m, "device-only", "secret-akpu", "akpu")
        #expect(!m.device("passcode", "remove", passcode: "1111").succeeded)
        try Self.expectCrashed(m, at: point, report: report)
        let status = m.device("status").stdout
        if point.hasSuffix("beforeKeybagRename") {
            // The old state: the passcode still unlocks and the akpu item is there.
            try expectSuccess(m.device("unlock", passcode: "1111"))
            #expect(FS.text(m.path("genp/svc/device-only/value")) == "secret-akpu")
        } else {
            // The new state: no passcode, and the open finished deleting the akpu items.
            #expect(status.contains("no-passcode"), "\(status)")
            #expect(FS.read(m.path("genp/svc/device-only/value")).errno == ENOENT)
        }
        #expect(FS.text(m.path("genp/svc/kept/value")) == "secret-kept")
    }

    @Test func unlock() throws {
        let point = "unlock.afterKeysLoaded"
        let (m, report) = try Self.vaultDying(at: point)
        defer { m.close() }
        try expectSuccess(m.device("passcode", "set", passcode: "1111"))
        try Self.add(m, "a", "secret-a", "ak")
        try expectSuccess(m.device("lock"))
        #expect(!m.device("unlock", passcode: "1111").succeeded)
        try Self.expectCrashed(m, at: point, report: report)
        #expect(m.device("status").stdout.contains("before-first-unlock"))
        try expectSuccess(m.device("unlock", passcode: "1111"))
        #expect(FS.text(m.path("genp/svc/a/value")) == "secret-a")
    }

    @Test func rename() throws {
        let point = "update.beforeCommit"
        let (m, report) = try Self.vaultDying(at: point)
        defer { m.close() }
        try Self.add(m, "a", "secret-a")
        try Self.add(m, "b", "secret-b")
        #expect(FS.rename(m.path("genp/svc/a"), m.path("genp/svc/c")) != 0)
        try Self.expectCrashed(m, at: point, report: report)
        #expect(FS.text(m.path("genp/svc/a/value")) == "secret-a", "the old name, intact")
        #expect(FS.read(m.path("genp/svc/c/value")).errno == ENOENT)
        #expect(FS.text(m.path("genp/svc/b/value")) == "secret-b")
    }

    @Test func delete() throws {
        let point = "delete.beforeCommit"
        let (m, report) = try Self.vaultDying(at: point)
        defer { m.close() }
        try Self.add(m, "a", "secret-a")
        #expect(FS.rmdir(m.path("genp/svc/a")) != 0)
        try Self.expectCrashed(m, at: point, report: report)
        #expect(FS.text(m.path("genp/svc/a/value")) == "secret-a")
    }
}
