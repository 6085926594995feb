import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import Testing
import KeychainFSTestSupport

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

    /// Boundary rules against the user's other processes (docs/threat-model.md, "Boundary and advisory
    /// rules"): on a user's --allow-root --strict mount, `uid = 0` grants root group b and `uid = USER` the
    /// user group a. The attacks of docs/threat-model.md, run by the user's processes, never reach b's secret: a
    /// reader forked before an exec of a setuid-root program, a control request written while the daemon was
    /// stopped before that exec; and a process of the user cannot enter a system unit's cgroup.
    @Test func boundaryRulesHoldAgainstTheUsersOtherProcesses() throws {
        let user = try User()
        let uid = try #require(
            UInt32(
                Command.run("/usr/bin/id", ["-u", user.name]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        try expectSuccess(user.keychainfs(["init", user.vault, "--test-device"]))
        for group in ["a", "b"] {
            try expectSuccess(
                Command.run(
                    "/usr/sbin/runuser",
                    [
                        "-u", user.name, "--", "/usr/bin/env", "HOME=\(user.home)", "XDG_STATE_HOME=\(user.home)/state",
                        "KEYCHAIN_ACCESS_GROUPS=\(group)", MountedVault.binary, "add-generic-password", "-s", "svc",
                        "-a",
                        "acct", "-w", "secret-\(group)", user.vault,
                    ], timeout: 30))
        }
        try expectSuccess(user.keychainfs(["access", "grant", "b", "--uid", "0", "--vault", user.vault]))
        try expectSuccess(user.keychainfs(["access", "grant", "a", "--uid", String(uid), "--vault", user.vault]))
        #expect(user.keychainfs(["access", "list", "--vault", user.vault]).stdout.contains("boundary"))
        try withUsableDevFuse {
            try withUserAllowOther {
                try expectSuccess(user.keychainfs(["mount", user.vault, user.mount, "--allow-root", "--strict"]))
                defer { user.unmount() }
                #expect(FS.read(value(user)) == .success(Data("secret-b".utf8)), "root: the uid 0 rule")
                let script = user.home + "/borrow.py"
                try """
                import os, signal, socket, struct, sys, time
                value, sock, daemon = sys.argv[1], sys.argv[2], int(sys.argv[3])
                # Attack 3: a reader forked first, then the parent becomes a setuid-root program.
                if os.fork() == 0:
                    time.sleep(0.5)
                    try: print("mount:", open(value).read())
                    except OSError as e: print("mount:", e)
                    sys.stdout.flush()
                    # Attack 4: the daemon stopped, a request written, then the exec.
                    os.kill(daemon, signal.SIGSTOP)
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(sock)
                    s.sendall(bytes.fromhex(sys.argv[4]))
                    if os.fork() == 0:
                        time.sleep(0.5); os.kill(daemon, signal.SIGCONT)
                        data = b""
                        while True:
                            chunk = s.recv(65536)
                            if not chunk: break
                            data += chunk
                        print("socket:", data); sys.stdout.flush(); os._exit(0)
                    os.execv("/bin/su", ["su", "-c", "sleep 2", "root"])
                os.execv("/bin/su", ["su", "-c", "sleep 2", "root"])
                """.write(toFile: script, atomically: true, encoding: .utf8)
                let daemon = try #require(
                    Int32(
                        user.keychainfs(["status", "--mount", user.mount]).stdout.split(separator: "\n")
                            .first { $0.hasPrefix("pid: ") }?.dropFirst(5) ?? ""))
                defer { kill(daemon, SIGCONT) }
                let socketPath = ControlSocket.path(for: Vault(directory: user.vault))
                let request = RawControl.frame(
                    "item.copy-matching",
                    ["query": .dictionary(["class": "genp", "svce": "svc", "acct": "acct", "r_Data": true])])
                let attack = Command.run(
                    "/usr/sbin/runuser",
                    [
                        "-u", user.name, "--", "/usr/bin/python3", script, value(user), socketPath, String(daemon),
                        request.map { String(format: "%02x", $0) }.joined(),
                    ], stdin: "", timeout: 60)
                #expect(!attack.stdout.contains("secret-b"), "the user's processes borrowed root's rule: \(attack)")
                #expect(attack.stdout.contains("mount: secret-a"), "the reader is the user, by its own rule: \(attack)")
                let cgroups = try AccessRulesTests.TestCgroups()
                let unit = try cgroups.make(
                    "/system.slice/kcfs-test-\(UUID().uuidString.prefix(8).lowercased()).service")
                let join = Command.run(
                    "/usr/sbin/runuser", ["-u", user.name, "--", "/bin/sh", "-c", "echo $$ > \(unit)/cgroup.procs"])
                #expect(!join.succeeded, "a process of the user cannot enter a system unit's cgroup: \(join)")
            }
        }
    }
}
