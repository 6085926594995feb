import Foundation
import Testing
import KeychainFSTestSupport

/// Mounting on a host with many mounts, dead mounts, and what the CLI says.
@Suite struct MountLifecycleDefectTests {
    static func cli(_ arguments: [String], stdin: String? = nil) -> CommandResult {
        Command.run(MountedVault.binary, arguments, stdin: stdin)
    }

    /// 200 tmpfs mounts in a private mount namespace (nothing reaches the host's table), then a real
    /// keychainfs mount there, `device … --mount`, and unmount.
    @Test func mountsAndIsFoundOnAHostWith200Mounts() throws {
        let root = TestDirectory.root + "/kcfs-many-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let script = """
            set -u
            kc="$1"; root="$2"
            trap '"$kc" unmount "$root/mnt" >/dev/null 2>&1; fusermount3 -u -z "$root/mnt" 2>/dev/null; for i in $(seq 1 200); do umount -l "$root/t$i" 2>/dev/null; done' EXIT
            for i in $(seq 1 200); do mkdir -p "$root/t$i" && mount -t tmpfs -o size=64k "kcfs-filler-$i" "$root/t$i" || exit 90; done
            echo "table bytes: $(cat /proc/self/mounts | wc -c)"
            "$kc" init "$root/vault" --test-device >/dev/null || exit 91
            "$kc" mount "$root/vault" "$root/mnt" || exit 92
            "$kc" device status --mount "$root/mnt" || exit 93
            "$kc" unmount "$root/mnt" || exit 94
            grep -q " $root/mnt fuse.keychainfs " /proc/self/mounts && exit 95
            exit 0
            """
        let result = Command.run(
            "/usr/bin/unshare",
            ["-m", "--propagation", "private", "/bin/bash", "-c", script, "many-mounts", MountedVault.binary, root],
            timeout: 90)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stdout.contains("state: no-passcode"))
        let bytes =
            Int(result.stdout.split(separator: "\n").first { $0.hasPrefix("table bytes: ") }?.dropFirst(13) ?? "") ?? 0
        #expect(bytes > 8192, "the table is several pages long (\(bytes) bytes)")
        #expect(!MountedVault.mountTable().contains(root), "nothing leaked into this namespace")
    }

    /// The daemon, its fusermount3 helper and its watchdog (a bash process) killed: the mountpoint
    /// answers ENOTCONN. Mounting again clears the dead mount and works; it is not taken for a live one.
    @Test func aDeadMountIsClearedNotTakenForALiveOne() throws {
        let m = try MountedVault()
        let pid = try #require(m.daemonPID)
        let helpers = Self.children(of: pid).filter { ["fusermount3", "bash"].contains(Self.command(of: $0)) }
        #expect(helpers.count == 2, "auto_unmount runs a fusermount3 helper, and the watchdog runs")
        for helper in helpers { kill(helper, SIGKILL) }
        usleep(300_000)  // the helper is gone before the daemon: nothing will unmount
        kill(pid, SIGKILL)
        var st = statvfs()
        #expect(m.wait { statvfs(m.mount, &st) != 0 && errno == ENOTCONN }, "a dead mount")
        #expect(m.isMounted)
        let again = m.cli(["mount", m.vault, m.mount])
        #expect(again.succeeded, "\(again.stderr)")
        #expect(again.stderr.contains("dead"), "says what it cleared: \(again.stderr)")
        #expect(FS.mkdir(m.path("genp/svc")) == 0, "the new mount serves")
    }

    static func children(of parent: Int32) -> [Int32] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap(Int32.init) ?? []
        return pids.filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent
        }
    }

    static func command(of pid: Int32) -> String {
        ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "").trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    @Test func unmountOfAMountTheCallerCannotReachFailsAtOnceAndSaysSo() throws {
        let m = try MountedVault()
        let started = Date()
        let result = Command.run(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", MountedVault.binary, "unmount", m.mount])
        #expect(!result.succeeded)
        #expect(Date().timeIntervalSince(started) < 5, "no 10 s wait")
        #expect(!result.stderr.contains("detached it") && result.stderr.contains("cannot unmount"), "\(result.stderr)")
        #expect(m.isMounted && m.control.isDaemonRunning, "the mount is untouched")
    }

    @Test func theWrongDeviceKeyIsNamedAsSuchNotAsAWrongPasscode() throws {
        let m = try MountedVault()
        let other = m.root + "/other"
        try expectSuccess(Self.cli(["init", other, "--test-device"]))
        m.unmount()
        let result = Self.cli(["mount", m.vault, m.mount, "--device-key", other + "/device.key"])
        #expect(!result.succeeded)
        #expect(
            result.stderr.contains("device key") && !result.stderr.contains("passcode is not correct"),
            "\(result.stderr)")
        #expect(!m.isMounted)
    }

    @Test func aRegularFileAsMountpointGetsASentence() throws {
        let m = try MountedVault()
        m.unmount()
        let file = m.root + "/file"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let result = Self.cli(["mount", m.vault, file])
        #expect(!result.succeeded)
        #expect(result.stderr.contains("cannot mount on \(file): it is not a directory"), "\(result.stderr)")
        #expect(!result.stderr.contains("NSCocoaErrorDomain") && !result.stderr.contains("Error Domain"))
    }

    @Test func securityVerbsReportAVaultThatCannotBeOpenedTheirWay() throws {
        let missing = TestDirectory.root + "/kcfs-missing-" + UUID().uuidString.prefix(8)
        for verb in [
            ["find-generic-password", "-s", "x"], ["delete-internet-password", "-s", "x"],
            ["add-generic-password", "-s", "x", "-a", "y", "-w", "z"],
        ] {
            let result = Self.cli(verb + [missing])
            #expect(
                result.status == Int32(UInt8(truncatingIfNeeded: -25291)),
                "errSecNotAvailable's exit code for \(verb[0]): \(result.status)")
            #expect(result.stderr.hasPrefix("security: ") && result.stderr.contains("no vault at"), "\(result.stderr)")
        }
    }

    @Test func hexPasswordsTakeHexDigitsOnly() throws {
        let m = try MountedVault()
        for bad in ["+1+2", "+f", "0x12", "1g", "é1"] {
            let result = m.cli(["add-generic-password", "-s", "hex", "-a", "a\(bad)", "-X", bad, m.vault])
            #expect(!result.succeeded && result.stderr.contains("hex digits"), "-X \(bad): \(result.stderr)")
        }
        try expectSuccess(m.cli(["add-generic-password", "-s", "hex", "-a", "ok", "-X", "0aFf", m.vault]))
        #expect(FS.read(m.path("genp/hex/ok/value")) == .success(Data([0x0A, 0xFF])))
    }
}
