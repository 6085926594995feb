import Foundation
import Testing
import TestSupport

/// `mount --allow-root` (docs/spec.md §1, §4 "Mount behaviour"): a user's mount that root (a system service, say
/// through systemd's `LoadCredential=`) may read, and nobody else. Run with a real non-root mounting user
/// (useradd + runuser) and fusermount3; /etc/fuse.conf is restored exactly and the users removed.
@Suite(.serialized) struct AllowRootTests {
    /// A throwaway user with a directory of its own (0755, so that only the mount itself refuses others).
    final class User {
        let name = "kcfs" + UUID().uuidString.prefix(8).lowercased()
        let home: String
        init() throws {
            try expectSuccess(Command.run("/usr/sbin/useradd", ["--create-home", "--shell", "/bin/sh", name]))
            home = TestDirectory.root + "/kcfs-allowroot-" + name
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            try expectSuccess(Command.run("/bin/chown", [name, home]))
            try expectSuccess(Command.run("/bin/chmod", ["0755", home]))
        }

        /// Runs `keychainfs ARGS` as this user (its device keys in its own state directory).
        func keychainfs(_ arguments: [String], stdin: String? = nil) -> CommandResult {
            Command.run(
                "/usr/sbin/runuser",
                [
                    "-u", name, "--", "/usr/bin/env", "HOME=\(home)", "XDG_STATE_HOME=\(home)/state",
                    MountedVault.binary,
                ] + arguments, stdin: stdin, timeout: 30)
        }

        var mount: String { home + "/mnt" }
        var vault: String { home + "/vault" }

        func unmount() {
            _ = keychainfs(["unmount", mount])
            if MountedVault.mountTable().contains(" \(mount) ") {
                umount2(mount, Int32(MNT_DETACH))
            }
        }

        deinit {
            unmount()
            _ = Command.run("/usr/sbin/userdel", ["--remove", name])
            try? FileManager.default.removeItem(atPath: home)
        }
    }

    /// /dev/fuse usable by every user, as udev leaves it on a Debian machine (0666), for the length of
    /// `body`: fusermount3 opens it as the mounting user. Some containers make it 0600; restored after.
    func withUsableDevFuse(_ body: () throws -> Void) throws {
        var st = stat()
        try #require(stat("/dev/fuse", &st) == 0, "/dev/fuse exists")
        let mode = st.st_mode & 0o7777
        defer { chmod("/dev/fuse", mode) }
        chmod("/dev/fuse", 0o666)
        try body()
    }

    /// /etc/fuse.conf with `user_allow_other` for the length of `body`, then exactly as it was.
    func withUserAllowOther(_ body: () throws -> Void) throws {
        try withFuseConfiguration(
            { text in
                (text.isEmpty || text.hasSuffix("\n") ? text : text + "\n") + "user_allow_other\n"
            }, body)
    }

    /// /etc/fuse.conf changed by `change` for the length of `body`, then exactly as it was. Each version
    /// replaces the file whole (a temporary file renamed over it), so no moment leaves it half written.
    func withFuseConfiguration(_ change: (String) -> String, _ body: () throws -> Void) throws {
        let url = URL(fileURLWithPath: "/etc/fuse.conf")
        let original = FileManager.default.contents(atPath: url.path)
        defer {
            if let original {
                try? original.write(to: url, options: .atomic)
            } else {
                try? FileManager.default.removeItem(at: url)
            }
        }
        try Data(change(original.map { String(decoding: $0, as: UTF8.self) } ?? "").utf8).write(
            to: url, options: .atomic)
        try body()
    }

    func value(_ user: User) -> String { user.mount + "/genp/svc/acct/value" }

    @Test func rootReadsAnAllowRootMountAndNobodyElseDoes() throws {
        let user = try User()
        try expectSuccess(user.keychainfs(["init", user.vault, "--test-device"]))
        try expectSuccess(
            user.keychainfs(["add-generic-password", "-s", "svc", "-a", "acct", "-w", "s3cret", user.vault]))
        try withUsableDevFuse {
            try withUserAllowOther {
                try expectSuccess(user.keychainfs(["mount", user.vault, user.mount, "--allow-root"]))
                #expect(FS.read(value(user)) == .success(Data("s3cret".utf8)), "root reads the user's secret")
                let other = Command.run("/usr/sbin/runuser", ["-u", "nobody", "--", "/bin/cat", value(user)])
                #expect(
                    !other.succeeded && other.stderr.contains("Permission denied"),
                    "another user does not: \(other.stderr)")
                let owner = user.keychainfs(["find-generic-password", "-s", "svc", "-a", "acct", "-w", user.vault])
                #expect(owner.stdout == "s3cret\n", "the owner still reads it through its daemon")
                user.unmount()
                #expect(!MountedVault.mountTable().contains(" \(user.mount) "))

                try expectSuccess(user.keychainfs(["mount", user.vault, user.mount]))
                #expect(
                    FS.read(value(user)) == .failure(Errno(EACCES)),
                    "without --allow-root, root is refused like anyone else")
                user.unmount()
            }
        }
    }

    @Test func aMissingUserAllowOtherIsAClearError() throws {
        let user = try User()
        try expectSuccess(user.keychainfs(["init", user.vault, "--test-device"]))
        try withFuseConfiguration({ _ in "#user_allow_other\n" }) {
            let refused = user.keychainfs(["mount", user.vault, user.mount, "--allow-root"])
            #expect(
                !refused.succeeded && refused.stderr.contains("user_allow_other")
                    && refused.stderr.contains("/etc/fuse.conf"), "\(refused.stderr)")
            #expect(!MountedVault.mountTable().contains(" \(user.mount) "))
        }
    }
}
