import Foundation
import Testing
import KeychainFSTestSupport

/// mount-helpers/: with-keychain and the mount(8) helper.
@Suite struct MountHelperTests {
    static let helpers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("mount-helpers").path
    let environment = ["KEYCHAINFS": MountedVault.binary]

    @Test func withKeychainRunsTheCommandAndAlwaysCleansUp() throws {
        let script = """
            set -e
            mkdir -p "$KEYCHAIN_MOUNT/genp/svc/alice"
            printf s3cret > "$KEYCHAIN_MOUNT/genp/svc/alice/value"
            keychainfs_out=$(cat "$KEYCHAIN_MOUNT/genp/svc/alice/value")
            "$KEYCHAINFS" device lock
            if cat "$KEYCHAIN_MOUNT/genp/svc/alice/value" 2>/dev/null; then echo "read while locked"; exit 1; fi
            echo "$KEYCHAIN_VAULT $keychainfs_out"
            exit 3
            """
        let result = Command.run(
            Self.helpers + "/with-keychain", ["--passcode-stdin", "--", "/bin/bash", "-c", script],
            stdin: "1234\n", environment: environment, timeout: 60)
        #expect(result.status == 3, "the command's own status: \(result.stderr)")
        let words = result.stdout.split(separator: " ")
        #expect(words.count == 2 && words[1].hasPrefix("s3cret"))
        let vault = String(words.first ?? "")
        #expect(!vault.isEmpty && !FileManager.default.fileExists(atPath: vault), "the vault is removed")
        #expect(
            !((try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? "").contains(
                vault.replacingOccurrences(of: "/vault", with: "/mnt")))
    }

    @Test func withKeychainCleansUpWhenTheCommandFails() throws {
        let result = Command.run(
            Self.helpers + "/with-keychain", ["/bin/sh", "-c", "echo $KEYCHAIN_MOUNT; exit 7"],
            environment: environment, timeout: 60)
        #expect(result.status == 7)
        let mount = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            !mount.isEmpty
                && !((try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? "").contains(mount))
    }

    /// Only the passcode line is consumed; the command reads the rest, so a lock test can
    /// go on to unlock from the same input.
    @Test func withKeychainLeavesTheRestOfStandardInputToTheCommand() throws {
        let script = """
            set -e
            "$KEYCHAINFS" device lock
            IFS= read -r first
            printf '%s\\n' "$first" | "$KEYCHAINFS" device unlock --passcode-stdin
            "$KEYCHAINFS" device status | grep -q 'state: unlocked'
            cat
            """
        let result = Command.run(
            Self.helpers + "/with-keychain", ["--passcode-stdin", "--", "/bin/bash", "-c", script],
            stdin: "1234\n1234\nline3\nline4\n", environment: environment, timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "line3\nline4\n")
        let plain = Command.run(
            Self.helpers + "/with-keychain", ["--passcode-stdin", "--", "/bin/sh", "-c", "cat"],
            stdin: "1234\nline2\n", environment: environment, timeout: 60)
        #expect(plain.status == 0 && plain.stdout == "line2\n", "\(plain.stderr)")
    }

    /// The options fstab lines carry are left to mount(8), not refused.
    @Test func mountHelperAcceptsGenericFstabOptions() throws {
        let root = TestDirectory.root + "/kcfs-helper-" + UUID().uuidString.prefix(8)
        defer {
            _ = Command.run(MountedVault.binary, ["unmount", root + "/mnt"])
            try? FileManager.default.removeItem(atPath: root)
        }
        try expectSuccess(Command.run(MountedVault.binary, ["init", root + "/vault", "--test-device"]))
        let options =
            "rw,noatime,relatime,nodiratime,lazytime,async,nosuid,nodev,noexec,user,comment=systemd.automount,x-systemd.idle-timeout=60"
        let mounted = Command.run(
            Self.helpers + "/mount.fuse.keychainfs", [root + "/vault", root + "/mnt", "-o", options],
            environment: environment)
        #expect(mounted.succeeded, "\(mounted.stderr)")
        #expect(FS.mkdir(root + "/mnt/genp/svc") == 0)
    }

    @Test func mountHelperTranslatesMountOptions() throws {
        let root = TestDirectory.root + "/kcfs-helper-" + UUID().uuidString.prefix(8)
        defer {
            _ = Command.run(MountedVault.binary, ["unmount", root + "/mnt"])
            try? FileManager.default.removeItem(atPath: root)
        }
        try expectSuccess(Command.run(MountedVault.binary, ["init", root + "/vault", "--test-device"]))
        let mounted = Command.run(
            Self.helpers + "/mount.fuse.keychainfs",
            [
                root + "/vault", root + "/mnt", "-o",
                "defaults,noauto,access-group=TEAM.a,access-group=TEAM.b,default-accessible=ck",
            ],
            environment: environment)
        try expectSuccess(mounted)
        #expect(FS.mkdir(root + "/mnt/genp/svc") == 0 && FS.mkdir(root + "/mnt/genp/svc/alice") == 0)
        #expect(FS.xattrText(root + "/mnt/genp/svc/alice", "user.kSecAttrAccessGroup") == "TEAM.a")
        #expect(
            FS.xattrText(root + "/mnt/genp/svc/alice", "user.kSecAttrAccessible")
                == "kSecAttrAccessibleAfterFirstUnlock")
        #expect(FS.mkdir(root + "/mnt/genp/svc/bob;agrp=TEAM.b") == 0)
        let bad = Command.run(
            Self.helpers + "/mount.fuse.keychainfs", [root + "/vault", root + "/mnt2", "-o", "frobnicate"],
            environment: environment)
        #expect(!bad.succeeded && bad.stderr.contains("unknown option"))
    }
}
