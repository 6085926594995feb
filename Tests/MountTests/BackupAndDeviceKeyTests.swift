import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// `keychainfs backup` / `restore` through running daemons, the device key outside the vault by default,
/// and a vault of the release of 2026-11-23 (key inside) mounting with one warning (docs/security.md).
@Suite struct BackupAndDeviceKeyTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/vault-2026-11-23").path

    static func add(_ m: MountedVault, _ account: String, _ accessibility: String) throws {
        let query: KeychainDictionary = [
            "class": "genp", "svce": "svc", "acct": .string(account), "pdmn": .string(accessibility),
            "v_Data": .data(Data("secret-\(account)".utf8)),
        ]
        _ = try m.control.send(ControlRequest(.itemAdd, ["query": .dictionary(query)])).check()
    }

    @Test func initKeepsTheDeviceKeyInTheStateDirectory() throws {
        let m = try MountedVault()
        defer { m.close() }
        #expect(!FileManager.default.fileExists(atPath: m.vault + "/device.key"))
        let keys = try FileManager.default.contentsOfDirectory(atPath: m.root + "/state/keychainfs")
        #expect(keys.count == 1 && keys[0].hasSuffix(".device.key"), "\(keys)")
        let mode =
            try FileManager.default.attributesOfItem(atPath: m.root + "/state/keychainfs/" + keys[0])[.posixPermissions]
            as? Int
        #expect(mode == 0o600)
    }

    @Test func backupOnOneVaultRestoresIntoAnotherWithItsOwnDeviceKey() throws {
        let source = try MountedVault()
        defer { source.close() }
        for (account, accessibility) in [("one", "ak"), ("two", "ck"), ("three", "dk"), ("local", "cku")] {
            try Self.add(source, account, accessibility)
        }
        let file = source.root + "/backup.kcfs"
        let made = source.cli(["backup", file, "--mount", source.mount, "--password-stdin"], stdin: "hunter2 backup\n")
        #expect(made.succeeded && made.stdout.contains("backed up 3 item(s)"), "\(made.stderr)\(made.stdout)")
        #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)
        let sealed = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(sealed.range(of: Data("secret-".utf8)) == nil, "no plaintext in the backup")

        let target = try MountedVault()
        defer { target.close() }
        let wrong = target.cli(["restore", file, "--mount", target.mount, "--password-stdin"], stdin: "wrong\n")
        #expect(!wrong.succeeded && wrong.stderr.contains("password"), "\(wrong.stderr)")
        let restored = target.cli(
            ["restore", file, "--mount", target.mount, "--password-stdin"], stdin: "hunter2 backup\n")
        #expect(restored.succeeded && restored.stdout.contains("3 added"), "\(restored.stderr)\(restored.stdout)")
        for account in ["one", "two", "three"] {
            #expect(FS.text(target.path("genp/svc/\(account)/value")) == "secret-\(account)")
        }
        #expect(FS.read(target.path("genp/svc/local/value")).errno == ENOENT, "ThisDeviceOnly items stay behind")
        let again = target.cli(
            ["restore", file, "--mount", target.mount, "--password-stdin"], stdin: "hunter2 backup\n")
        #expect(!again.succeeded && again.stderr.contains("--merge"), "\(again.stderr)")
        let merged = target.cli(
            ["restore", file, "--mount", target.mount, "--merge", "--password-stdin"], stdin: "hunter2 backup\n")
        #expect(merged.succeeded && merged.stdout.contains("3 kept"), "\(merged.stderr)\(merged.stdout)")
    }

    @Test func aVaultOfTheReleaseOf20261123MountsWarnsOnceAndMovesItsKeyOut() throws {
        let m = try MountedVault()
        defer { m.close() }
        m.unmount()
        let old = m.root + "/old-vault"
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: old)
        chmod(old, 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: old) { chmod(old + "/" + name, 0o600) }
        let mount = m.root + "/old-mnt"
        let mounted = Command.run(MountedVault.binary, ["mount", old, mount], timeout: 30)
        defer {
            _ = Command.run(MountedVault.binary, ["unmount", mount], timeout: 15);
            _ = Command.run("/bin/fusermount3", ["-u", "-z", mount], timeout: 5)
        }
        #expect(mounted.succeeded, "\(mounted.stderr)")
        #expect(
            mounted.stderr.components(separatedBy: "move-device-key").count == 2,
            "one warning naming the command: \(mounted.stderr)")
        let unlocked = Command.run(
            MountedVault.binary, ["device", "unlock", "--mount", mount, "--passcode-stdin"], stdin: "fixture-1234\n",
            timeout: 30)
        #expect(unlocked.succeeded, "\(unlocked.stderr)")
        #expect(FS.text(mount + "/genp/fixture.unlocked/erin/value") == "fixture secret ak")
        #expect(FS.text(mount + "/genp/fixture.passcode/heidi/value") == "fixture secret akpu")
        try expectSuccess(Command.run(MountedVault.binary, ["unmount", mount], timeout: 15))

        let moved = Command.run(
            MountedVault.binary, ["move-device-key", old], environment: ["XDG_STATE_HOME": m.root + "/state"],
            timeout: 30)
        #expect(
            moved.succeeded && moved.stdout.contains(m.root + "/state/keychainfs/"), "\(moved.stderr)\(moved.stdout)")
        #expect(!FileManager.default.fileExists(atPath: old + "/device.key"))
        let remounted = Command.run(MountedVault.binary, ["mount", old, mount], timeout: 30)
        #expect(remounted.succeeded && !remounted.stderr.contains("move-device-key"), "\(remounted.stderr)")
        #expect(FS.text(mount + "/genp/fixture.always/alice/value") == "fixture secret dk")
    }
}
