import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// The vault never writes or reads through a symlink planted at any name it uses
/// (final or temporary), and every vault file is private.
@Suite struct VaultFileSafetyTests {
    /// A file the planted links point at; it must come out unchanged.
    struct Victim {
        let path: String
        let content = "precious: root:x:0:0\n"
        init(in root: String) throws {
            path = root + "/victim-\(UUID().uuidString.prefix(6))"
            try content.write(toFile: path, atomically: false, encoding: .utf8)
        }
        var isUnchanged: Bool { (try? String(contentsOfFile: path, encoding: .utf8)) == content }
    }

    /// The names the vault's atomic writes used before (`NAME.tmp-<pid>`), for the pids coming next.
    static func plantTemporaryLinks(for names: [String], in directory: String, to target: String) {
        let last =
            Int(
                (try? String(contentsOfFile: "/proc/sys/kernel/ns_last_pid", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 0
        for name in names {
            for pid in last...(last + 300) { symlink(target, "\(directory)/\(name).tmp-\(pid)") }
        }
    }

    static func scratch() throws -> String {
        let root = TestDirectory.root + "/kcfs-links-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        return root
    }

    static func cli(_ arguments: [String]) -> CommandResult { Command.run(MountedVault.binary, arguments) }

    @Test func initNeverWritesThroughALinkAtAFinalOrTemporaryName() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let victim = try Victim(in: root)
        for name in ["keybag", "vault.json", "device.key", "items.sqlite"] {
            let vault = root + "/vault-\(name)"
            #expect(mkdir(vault, 0o700) == 0)
            #expect(symlink(victim.path, vault + "/" + name) == 0)
            Self.plantTemporaryLinks(for: ["keybag", "vault.json", "device.key"], in: vault, to: victim.path)
            let result = Self.cli(["init", vault, "--test-device"])
            #expect(victim.isUnchanged, "init with a link at \(name): \(result.stderr)")
            // keybag is replaced by rename (the link goes, its target stays); device.key is no longer written
            // inside the vault (the key goes to the state directory); the others are refused.
            #expect(result.succeeded == (name == "keybag" || name == "device.key"), "\(name): \(result.stderr)")
        }
        // The device key kept outside the vault: links at the names init would have used beside it.
        let shared = root + "/shared"
        #expect(mkdir(shared, 0o700) == 0)
        Self.plantTemporaryLinks(for: ["key"], in: shared, to: victim.path)
        try expectSuccess(
            Self.cli(["init", root + "/vault-external", "--device-key", shared + "/key", "--test-device"]))
        #expect(victim.isUnchanged)
        #expect(symlink(victim.path, shared + "/key2") == 0)
        let refused = Self.cli(["init", root + "/vault-external2", "--device-key", shared + "/key2", "--test-device"])
        #expect(!refused.succeeded && refused.stderr.contains("already exists"))
        #expect(victim.isUnchanged)
    }

    @Test func theDaemonNeverOpensALinkAtTheLogLockOrDatabaseFiles() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let victim = try Victim(in: root)
        for name in [
            "daemon.log", "daemon.lock", "items.sqlite", "items.sqlite-wal", "items.sqlite-shm", "items.sqlite-journal",
        ] {
            let vault = root + "/vault-\(name)", mount = root + "/mnt-\(name)"
            try expectSuccess(Self.cli(["init", vault, "--test-device"]))
            if name == "items.sqlite" { #expect(rename(vault + "/" + name, root + "/moved-\(UUID().uuidString)") == 0) }
            #expect(symlink(victim.path, vault + "/" + name) == 0)
            let mounted = Self.cli(["mount", vault, mount])
            defer { if mounted.succeeded { _ = Self.cli(["unmount", mount]) } }
            #expect(!mounted.succeeded, "\(name) is a link: the mount must be refused")
            #expect(
                mounted.stderr.contains("symlink") || mounted.stderr.contains("not a regular file"),
                "\(name): \(mounted.stderr)")
            #expect(!MountedVault.mountTable().contains(" \(mount) "))
            #expect(victim.isUnchanged, "\(name)")
        }
    }

    /// An in-process client keeps the lock file open between its calls (VaultCallLock): a link planted at
    /// `daemon.lock` between two calls is neither followed nor written; the call fails and says why.
    @Test func anInProcessClientNeverFollowsALinkPlantedAtTheLockFileBetweenCalls() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let victim = try Victim(in: root)
        let vault = root + "/vault"
        try expectSuccess(Self.cli(["init", vault, "--test-device"]))
        let connection = try KeychainConnection(vault: Vault(directory: vault), caller: Caller())
        let item: KeychainDictionary = ["class": "genp", "svce": "s", "acct": "a"]
        _ = try connection.add(item.merging(["v_Data": .data(Data("x".utf8))]) { $1 })
        #expect(unlink(vault + "/daemon.lock") == 0 && symlink(victim.path, vault + "/daemon.lock") == 0)
        do {
            _ = try connection.copyMatching(item.merging(["r_Data": true]) { $1 })
            Issue.record("a call ran with a link at daemon.lock")
        } catch {
            #expect(error.message.contains("symlink"), "\(error.message)")
        }
        #expect(victim.isUnchanged)
    }

    @Test func passcodeChangesNeverWriteThroughALinkAtTheKeybagsTemporaryName() throws {
        let m = try MountedVault()
        let victim = try Victim(in: m.root)
        let pid = try #require(m.daemonPID)
        #expect(symlink(victim.path, m.vault + "/keybag.tmp-\(pid)") == 0)
        Self.plantTemporaryLinks(for: ["keybag"], in: m.vault, to: victim.path)
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(
            m.cli(["device", "passcode", "change", "--mount", m.mount, "--passcode-stdin"], stdin: "1234\n5678\n"))
        try expectSuccess(m.device("auto-lock", "30"))
        #expect(victim.isUnchanged)
        #expect(
            (try? FileManager.default.destinationOfSymbolicLink(atPath: m.vault + "/keybag.tmp-\(pid)")) == victim.path,
            "the planted link itself is left alone")
    }

    @Test func initMakesAnExistingSharedDirectoryPrivateAndEveryFile0600() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let vault = root + "/vault", mount = root + "/mnt"
        #expect(mkdir(vault, 0o755) == 0 && chmod(vault, 0o1777) == 0)
        try expectSuccess(Self.cli(["init", vault, "--test-device", "--device-key", root + "/device.key"]))
        #expect(FS.mode(vault).map { $0 & 0o7777 } == 0o700)
        #expect(
            FS.mode(root + "/device.key").map { $0 & 0o777 } == 0o600, "the device key (outside the vault) is private")
        try expectSuccess(Self.cli(["mount", vault, mount]))
        defer { _ = Self.cli(["unmount", mount]) }
        #expect(FS.mkdir(mount + "/genp/svc") == 0 && FS.mkdir(mount + "/genp/svc/a") == 0)
        #expect(FS.write(mount + "/genp/svc/a/value", "secret") == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: vault)
        for name in [
            "items.sqlite", "items.sqlite-wal", "items.sqlite-shm", "keybag", "vault.json", "daemon.log", "daemon.lock",
        ] {
            #expect(files.contains(name), "\(name) exists while mounted")
            #expect(FS.mode(vault + "/" + name).map { $0 & 0o777 } == 0o600, "\(name) is private")
        }
    }

    @Test func aDirectoryOthersCanWriteIsRefused() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let shared = root + "/shared"
        #expect(mkdir(shared, 0o755) == 0 && chmod(shared, 0o1777) == 0)
        #expect(FileManager.default.createFile(atPath: shared + "/planted", contents: Data()))
        let refused = Self.cli(["init", shared, "--test-device"])
        #expect(!refused.succeeded && refused.stderr.contains("writable by other users"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: shared + "/vault.json"))

        let vault = root + "/vault"
        try expectSuccess(Self.cli(["init", vault, "--test-device"]))
        #expect(chmod(vault, 0o777) == 0)
        let mounted = Self.cli(["mount", vault, root + "/mnt"])
        defer { if mounted.succeeded { _ = Self.cli(["unmount", root + "/mnt"]) } }
        #expect(
            !mounted.succeeded && mounted.stderr.contains("writable by other users")
                && mounted.stderr.contains("chmod 700"), "\(mounted.stderr)")
        let find = Self.cli(["find-generic-password", "-s", "x", vault])
        #expect(
            find.status == 53 && find.stderr.hasPrefix("security: "), "errSecNotAvailable's low byte: \(find.stderr)")
    }
}
