import Foundation
import KeychainFSTestSupport
import Testing

/// A vault whose device key a TPM seals (docs/tpm.md), on swtpm: each test has TPMs of its own.
@Suite struct TPMDeviceKeyTests {
    init() throws {
        try #require(SoftwareTPM.isInstalled, "swtpm is missing: scripts/install-deps.sh installs it")
    }

    /// Every file under `directory`, read.
    static func files(under directory: String) -> [(path: String, bytes: Data)] {
        let names = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        return names.compactMap { name in
            let path = directory + "/" + name
            return FileManager.default.contents(atPath: path).map { (path, $0) }
        }
    }

    static func copy(_ vault: String) throws -> String {
        let copy = vault + "-copy-" + UUID().uuidString.prefix(4)
        try FileManager.default.copyItem(atPath: vault, toPath: copy)
        for lock in ["/daemon.lock", "/daemon.log"] { try? FileManager.default.removeItem(atPath: copy + lock) }
        return copy
    }

    @Test func aVaultMadeWithTPMOpensOnlyWithItsTPMAndSaysSo() throws {
        let tpm = try SoftwareTPM()
        let other = try SoftwareTPM()
        let m = try MountedVault(initArguments: ["--test-device", "--tpm", "--tpm-tcti", tpm.tcti])
        try FileManager.default.createDirectory(atPath: m.path("genp/svc/acct"), withIntermediateDirectories: true)
        try "s3cret".write(toFile: m.path("genp/svc/acct/value"), atomically: false, encoding: .utf8)
        let status = m.cli(["status", "--mount", m.mount])
        #expect(status.stdout.contains("device key: sealed by the TPM at \(tpm.tcti)"), "\(status.stdout)")
        m.unmount()

        // Every file copied, opened with another TPM: refused, and the copy is as it was.
        let copy = try Self.copy(m.vault)
        // What it stores: a refused mount may add its lock and a log line.
        func stored() -> [Data] { Self.files(under: copy).filter { !$0.path.contains("/daemon.") }.map(\.bytes) }
        let before = stored()
        let mountpoint = m.root + "/copy-mnt"
        let refused = Command.run(
            MountedVault.binary, ["mount", copy, mountpoint],
            environment: ["KEYCHAINFS_TPM_TCTI": other.tcti, "XDG_STATE_HOME": m.root + "/state"])
        #expect(refused.status != 0)
        #expect(
            refused.stderr.contains("errSecDecode") && refused.stderr.contains("sealed by another TPM"),
            "\(refused.stderr)")
        #expect(stored() == before)
        #expect(!MountedVault.mountTable().contains(" \(mountpoint) "))

        // Its own TPM opens it, the copy too.
        try expectSuccess(m.remount())
        #expect(try String(contentsOfFile: m.path("genp/svc/acct/value"), encoding: .utf8) == "s3cret")
    }

    /// The test above, with the seal switched off (`--tpm` then makes a device key file): the copy opens with
    /// another TPM, so that test can fail.
    @Test func withoutTheSealACopiedVaultOpensWithAnotherTPM() throws {
        let tpm = try SoftwareTPM()
        let other = try SoftwareTPM()
        let m = try MountedVault(
            initArguments: ["--test-device", "--tpm", "--tpm-tcti", tpm.tcti],
            initEnvironment: ["KEYCHAINFS_TEST_DISABLE_GUARDS": "tpm-seal"])
        m.unmount()
        let copy = try Self.copy(m.vault)
        let mountpoint = m.root + "/copy-mnt"
        let opened = Command.run(
            MountedVault.binary, ["mount", copy, mountpoint],
            environment: ["KEYCHAINFS_TPM_TCTI": other.tcti, "XDG_STATE_HOME": m.root + "/state"])
        #expect(opened.status == 0, "\(opened.stderr)")
        _ = Command.run(MountedVault.binary, ["unmount", mountpoint])
    }

    /// tpm2-tools (another implementation) unseals the vault's `device-key.tpm` under the same primary key
    /// template; those 32 bytes open the vault as its device key, and no file of the vault or of the user's
    /// state holds them.
    @Test func tpm2ToolsUnsealTheDeviceKeyAndNoFileHoldsIt() throws {
        let tpm = try SoftwareTPM()
        let m = try MountedVault(initArguments: ["--test-device", "--tpm", "--tpm-tcti", tpm.tcti])
        try FileManager.default.createDirectory(atPath: m.path("genp/svc/acct"), withIntermediateDirectories: true)
        try "s3cret".write(toFile: m.path("genp/svc/acct/value"), atomically: false, encoding: .utf8)
        m.unmount()
        let key = try Self.unsealWithTools(m.vault + "/device-key.tpm", tpm: tpm, in: m.root)
        #expect(key.count == 32)

        let keyFile = m.root + "/unsealed.key"
        try key.write(to: URL(fileURLWithPath: keyFile))
        try expectSuccess(m.remount(["--device-key", keyFile]))
        #expect(try String(contentsOfFile: m.path("genp/svc/acct/value"), encoding: .utf8) == "s3cret")
        m.unmount()
        try FileManager.default.removeItem(atPath: keyFile)

        let holding = (Self.files(under: m.vault) + Self.files(under: m.root + "/state")).filter {
            $0.bytes.range(of: key) != nil
        }
        #expect(holding.isEmpty, "\(holding.map(\.path))")
        // The search finds a key where one is.
        try key.write(to: URL(fileURLWithPath: m.vault + "/planted"))
        #expect(Self.files(under: m.vault).contains { $0.bytes.range(of: key) != nil })
    }

    /// `tpm2_createprimary` with the TCG SRK template keychainfs uses, `tpm2_load`, `tpm2_unseal`.
    static func unsealWithTools(_ sealed: String, tpm: SoftwareTPM, in root: String) throws -> Data {
        let blob = try Data(contentsOf: URL(fileURLWithPath: sealed))
        let publicSize = Int(blob[0]) << 8 | Int(blob[1])
        try blob.prefix(2 + publicSize).write(to: URL(fileURLWithPath: root + "/key.pub"))
        try blob.dropFirst(2 + publicSize).write(to: URL(fileURLWithPath: root + "/key.priv"))
        // Without a resource manager tpm2-tools leave their objects loaded: flushed after each step.
        func flush() { _ = tpm.tool("tpm2_flushcontext", ["-t"]) }
        try expectSuccess(
            tpm.tool(
                "tpm2_createprimary",
                [
                    "-Q", "-C", "o", "-G", "ecc256:aes128cfb", "-g", "sha256", "-c", root + "/primary.ctx", "-a",
                    "restricted|decrypt|fixedtpm|fixedparent|sensitivedataorigin|userwithauth|noda",
                ]))
        flush()
        try expectSuccess(
            tpm.tool(
                "tpm2_load",
                [
                    "-Q", "-C", root + "/primary.ctx", "-u", root + "/key.pub", "-r", root + "/key.priv", "-c",
                    root + "/key.ctx",
                ]
            ))
        flush()
        try expectSuccess(tpm.tool("tpm2_unseal", ["-c", root + "/key.ctx", "-o", root + "/unsealed"]))
        flush()
        defer { try? FileManager.default.removeItem(atPath: root + "/unsealed") }
        return try Data(contentsOf: URL(fileURLWithPath: root + "/unsealed"))
    }

    @Test func noTPMIsAClearErrorAndMakesNothing() throws {
        let root = TestDirectory.root + "/tpm-none-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let missing = "swtpm:path=\(root)/no-such.sock"
        let made = Command.run(
            MountedVault.binary, ["init", root + "/vault", "--tpm", "--tpm-tcti", missing, "--test-device"],
            environment: ["XDG_STATE_HOME": root + "/state"])
        #expect(made.status != 0)
        #expect(
            made.stderr.contains("errSecNotAvailable") && made.stderr.contains("no TPM 2.0 answers at '\(missing)'"),
            "\(made.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root + "/vault"))
        let options = Command.run(MountedVault.binary, ["init", root + "/vault", "--tpm-pcrs", "7"])
        #expect(options.status == 64 && options.stderr.contains("go with --tpm"), "\(options.stderr)")
        let bad = Command.run(MountedVault.binary, ["init", root + "/vault", "--tpm", "--tpm-pcrs", "7,24"])
        #expect(bad.status == 64 && bad.stderr.contains("--tpm-pcrs"), "\(bad.stderr)")
        let unrecoverable = Command.run(MountedVault.binary, ["init", root + "/vault", "--tpm", "--tpm-pcrs", "7"])
        #expect(
            unrecoverable.status == 64 && unrecoverable.stderr.contains("needs --recovery-key"),
            "\(unrecoverable.stderr)")
    }

    /// Bound to PCR 16 (resettable, used by nothing at boot): after `tpm2_pcrextend` the TPM does not release
    /// the key and the mount says why; the recovery key seals it anew to the new values, on this TPM or another.
    @Test func aChangedBootStateIsRefusedAndTheRecoveryKeySealsItAnew() throws {
        let tpm = try SoftwareTPM()
        let root = TestDirectory.root + "/tpm-pcr-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let recovery = root + "/recovery.key"
        let m = try MountedVault(initArguments: [
            "--test-device", "--tpm", "--tpm-tcti", tpm.tcti, "--tpm-pcrs", "16", "--recovery-key", recovery,
        ])
        try FileManager.default.createDirectory(atPath: m.path("genp/svc/acct"), withIntermediateDirectories: true)
        try "s3cret".write(toFile: m.path("genp/svc/acct/value"), atomically: false, encoding: .utf8)
        m.unmount()
        let attributes = try FileManager.default.attributesOfItem(atPath: recovery)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)

        try expectSuccess(tpm.tool("tpm2_pcrextend", ["16:sha256=" + String(repeating: "01", count: 32)]))
        let refused = m.remount()
        #expect(refused.status != 0)
        #expect(
            refused.stderr.contains("errSecAuthFailed") && refused.stderr.contains("the boot state changed: PCRs 16"),
            "\(refused.stderr)")

        let wrong = root + "/wrong.key"
        try ("keychainfs-recovery-key-v1:" + String(repeating: "00", count: 32) + "\n")
            .write(toFile: wrong, atomically: true, encoding: .utf8)
        let refusedKey = m.cli(["move-device-key", m.vault, "--recover", wrong])
        #expect(refusedKey.status != 0 && refusedKey.stderr.contains("is not this vault's"), "\(refusedKey.stderr)")

        try expectSuccess(m.cli(["move-device-key", m.vault, "--recover", recovery]))
        try expectSuccess(m.remount())
        #expect(try String(contentsOfFile: m.path("genp/svc/acct/value"), encoding: .utf8) == "s3cret")
        m.unmount()

        // On another machine's TPM: the copy and the recovery key.
        let other = try SoftwareTPM()
        let copy = try Self.copy(m.vault)
        try expectSuccess(m.cli(["move-device-key", copy, "--recover", recovery, "--tpm-tcti", other.tcti]))
        let mountpoint = m.root + "/copy-mnt"
        try expectSuccess(Command.run(MountedVault.binary, ["mount", copy, mountpoint]))
        #expect(try String(contentsOfFile: mountpoint + "/genp/svc/acct/value", encoding: .utf8) == "s3cret")
        _ = Command.run(MountedVault.binary, ["unmount", mountpoint])
    }

    /// An existing vault's key file, sealed: the file goes, the vault opens as before, and only with this TPM.
    /// Interrupted after the config names the TPM, running it again finishes.
    @Test func moveDeviceKeyToTPMSealsAnExistingVaultsKey() throws {
        let tpm = try SoftwareTPM()
        let m = try MountedVault()
        try FileManager.default.createDirectory(atPath: m.path("genp/svc/acct"), withIntermediateDirectories: true)
        try "s3cret".write(toFile: m.path("genp/svc/acct/value"), atomically: false, encoding: .utf8)
        let keyFile = try #require(
            Self.files(under: m.root + "/state").first { $0.path.hasSuffix(".device.key") }?.path)
        m.unmount()
        let crashed = Command.run(
            MountedVault.binary, ["move-device-key", m.vault, "--to-tpm", "--tpm-tcti", tpm.tcti],
            environment: ["KEYCHAINFS_CRASH_AT": "seal-device-key.afterConfig"])
        #expect(crashed.status != 0)
        #expect(FileManager.default.fileExists(atPath: keyFile))
        try expectSuccess(m.remount())  // the TPM's key opens it in between
        m.unmount()
        try expectSuccess(m.cli(["move-device-key", m.vault, "--to-tpm", "--tpm-tcti", tpm.tcti]))
        #expect(!FileManager.default.fileExists(atPath: keyFile))
        try expectSuccess(m.remount())
        #expect(try String(contentsOfFile: m.path("genp/svc/acct/value"), encoding: .utf8) == "s3cret")
        #expect(m.cli(["status", "--mount", m.mount]).stdout.contains("sealed by the TPM"))
        m.unmount()
        let again = m.cli(["move-device-key", m.vault, "--to-tpm"])
        #expect(again.status != 0 && again.stderr.contains("sealed by the TPM already"), "\(again.stderr)")
        let out = m.cli(["move-device-key", m.vault])
        #expect(out.status != 0 && out.stderr.contains("has no file to move"), "\(out.stderr)")
    }

    /// scripts/with-swtpm.sh: a swtpm on 127.0.0.1 (tpm2-tss's TCP TCTI) for a command, gone after it.
    @Test func withSwtpmRunsACommandOnATPMOn127001AndStopsIt() throws {
        let script =
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/with-swtpm.sh").path
        let root = TestDirectory.root + "/tpm-script-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: root + "/state", withIntermediateDirectories: true)
        let run = Command.run(
            script,
            [
                "--", "/bin/sh", "-c",
                #"echo "$KEYCHAINFS_TPM_TCTI" && "$0" init "$1/vault" --tpm --test-device && "$0" mount "$1/vault" "$1/mnt" && mkdir -p "$1/mnt/genp/s/a" && printf x > "$1/mnt/genp/s/a/value" && "$0" unmount "$1/mnt" && exit 3"#,
                MountedVault.binary, root,
            ], environment: ["XDG_STATE_HOME": root + "/state", "TMPDIR": root], timeout: 90)
        #expect(run.status == 3, "\(run.stderr)")
        let tcti = run.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(tcti.hasPrefix("swtpm:host=127.0.0.1,port="), "\(run.stdout)")
        let config = try String(contentsOfFile: root + "/vault/vault.json", encoding: .utf8)
        #expect(config.contains("deviceKeyTPM"))
        let left = try FileManager.default.contentsOfDirectory(atPath: root).filter { $0.hasPrefix("swtpm.") }
        #expect(left.isEmpty, "\(left)")
        let port = Int(tcti.split(separator: "=").last ?? "") ?? 0
        let connect = Command.run("/bin/bash", ["-c", "exec 3<>/dev/tcp/127.0.0.1/\(port)"])
        #expect(connect.status != 0, "swtpm still listens on \(port)")
    }

    /// With a passcode, the TPM checks it (the share's authorization): wrong ones put the TPM into lockout
    /// (tpm2_getcap shows it), the device shows the TPM's delay, and the right passcode after it unlocks. The
    /// vault's files with the device key and the right passcode, but another TPM, derive no class key.
    @Test func thePasscodeIsCheckedByTheTPMAndItsLockoutHolds() throws {
        let tpm = try SoftwareTPM()
        // Three failures lock it out; one is forgiven every 2 s.
        try expectSuccess(tpm.tool("tpm2_dictionarylockout", ["-s", "-n", "3", "-t", "2", "-l", "2"]))
        let m = try MountedVault(initArguments: ["--test-device", "--tpm", "--tpm-tcti", tpm.tcti])
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try FileManager.default.createDirectory(atPath: m.path("genp/svc/acct"), withIntermediateDirectories: true)
        try "s3cret".write(toFile: m.path("genp/svc/acct/value"), atomically: false, encoding: .utf8)
        let keybag = try String(contentsOfFile: m.vault + "/keybag", encoding: .utf8)
        #expect(keybag.contains("passcodeTPMShare"))
        try expectSuccess(m.device("lock"))
        for attempt in 1...3 {
            let wrong = m.device("unlock", passcode: "9999")
            #expect(
                wrong.status != 0 && wrong.stderr.contains("the passcode is not correct (\(attempt) failed"),
                "\(wrong.stderr)")
        }
        let counters = tpm.tool("tpm2_getcap", ["properties-variable"])
        #expect(counters.stdout.contains("inLockout:                 1"), "\(counters.stdout)")
        let refused = m.device("unlock", passcode: "1234")
        #expect(
            refused.status != 0 && refused.stderr.contains("the TPM refuses passcode attempts for now"),
            "\(refused.stderr)")
        #expect(m.cli(["status", "--mount", m.mount]).stdout.contains("unlock disabled for:"))
        #expect(
            !FileManager.default.isReadableFile(atPath: m.path("genp/svc/acct/value"))
                || (try? String(contentsOfFile: m.path("genp/svc/acct/value"), encoding: .utf8)) == nil)
        // After the TPM forgives a failure (2 s; a hang guard of 60 s), the right passcode unlocks.
        var unlocked = m.device("unlock", passcode: "1234")
        let deadline = Date().addingTimeInterval(60)
        while unlocked.status != 0 && Date() < deadline {
            usleep(500_000)
            unlocked = m.device("unlock", passcode: "1234")
        }
        try expectSuccess(unlocked)
        #expect(try String(contentsOfFile: m.path("genp/svc/acct/value"), encoding: .utf8) == "s3cret")

        // Changed: the share is sealed anew for the new passcode, the old one is wrong.
        try expectSuccess(
            m.cli(["device", "passcode", "change", "--mount", m.mount, "--passcode-stdin"], stdin: "1234\n5678\n"))
        try expectSuccess(m.device("lock"))
        try expectSuccess(m.device("unlock", passcode: "5678"))
        m.unmount()

        // Every file and the device key itself (tpm2-tools unseal it from this TPM), the right passcode,
        // another TPM: the share is not there, so no class key comes out.
        let key = try Self.unsealWithTools(m.vault + "/device-key.tpm", tpm: tpm, in: m.root)
        let keyFile = m.root + "/unsealed.key"
        try key.write(to: URL(fileURLWithPath: keyFile))
        let other = try SoftwareTPM()
        let copy = try Self.copy(m.vault)
        let mountpoint = m.root + "/copy-mnt"
        try expectSuccess(
            Command.run(
                MountedVault.binary, ["mount", copy, mountpoint, "--device-key", keyFile],
                environment: ["KEYCHAINFS_TPM_TCTI": other.tcti]))
        defer { _ = Command.run(MountedVault.binary, ["unmount", mountpoint]) }
        let stolen = Command.run(
            MountedVault.binary, ["device", "unlock", "--mount", mountpoint, "--passcode-stdin"], stdin: "5678\n")
        #expect(stolen.status != 0 && stolen.stderr.contains("share"), "\(stolen.stderr)")
        #expect((try? String(contentsOfFile: mountpoint + "/genp/svc/acct/value", encoding: .utf8)) == nil)
    }

    /// Removing the passcode drops the share: the keybag holds none, and the vault opens as one without.
    @Test func removingThePasscodeDropsTheShare() throws {
        let tpm = try SoftwareTPM()
        let m = try MountedVault(initArguments: ["--test-device", "--tpm", "--tpm-tcti", tpm.tcti])
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("passcode", "remove", passcode: "1234"))
        let keybag = try String(contentsOfFile: m.vault + "/keybag", encoding: .utf8)
        #expect(!keybag.contains("passcodeTPMShare"))
        m.unmount()
        try expectSuccess(m.remount())
        #expect(m.cli(["status", "--mount", m.mount]).stdout.contains("passcode: not set"))
    }

    /// A vault with a passcode, boot unlock sealed to PCR 16, an AfterFirstUnlock item.
    static func bootUnlockVault(_ tpm: SoftwareTPM, initEnvironment: [String: String] = [:]) throws -> MountedVault {
        let m = try MountedVault(
            mountArguments: ["--default-accessible", "ck"],
            initArguments: ["--test-device", "--tpm", "--tpm-tcti", tpm.tcti], initEnvironment: initEnvironment,
            mountEnvironment: initEnvironment)
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try FileManager.default.createDirectory(atPath: m.path("genp/svc/acct"), withIntermediateDirectories: true)
        try "s3cret".write(toFile: m.path("genp/svc/acct/value"), atomically: false, encoding: .utf8)
        try expectSuccess(
            m.cli(
                ["device", "boot-unlock", "enable", "--mount", m.mount, "--tpm-pcrs", "16", "--passcode-stdin"],
                stdin: "1234\n"))
        #expect(m.cli(["status", "--mount", m.mount]).stdout.contains("boot unlock: sealed to PCRs"))
        m.unmount()
        return m
    }

    static func extendPCR16(_ tpm: SoftwareTPM) throws {
        try expectSuccess(tpm.tool("tpm2_pcrextend", ["16:sha256=" + String(repeating: "01", count: 32)]))
    }

    /// After `boot-unlock enable`, `mount --tpm-unlock` serves AfterFirstUnlock items with no passcode typed
    /// (in the background and in the foreground, as the systemd unit runs it), also after a passcode change;
    /// after `tpm2_pcrextend` of the bound PCR the device stays locked with the documented message, and the
    /// passcode unlocks it.
    @Test func bootUnlockServesAfterAReebootUntilTheBootStateChanges() throws {
        let tpm = try SoftwareTPM()
        let m = try Self.bootUnlockVault(tpm)
        let first = m.remount(["--tpm-unlock"])
        try expectSuccess(first)
        #expect(!first.stderr.contains("warning"), "\(first.stderr)")
        let status = m.cli(["status", "--mount", m.mount]).stdout
        #expect(status.contains("state: unlocked") && status.contains("boot unlock: sealed to PCRs 16"), "\(status)")
        #expect(try String(contentsOfFile: m.path("genp/svc/acct/value"), encoding: .utf8) == "s3cret")
        // Only the first unlock after a boot: after `device lock` the passcode is needed; after a reboot not.
        try expectSuccess(m.device("lock"))
        let afterLock = m.cli(["device", "unlock", "--tpm", "--mount", m.mount])
        #expect(
            afterLock.status != 0 && afterLock.stderr.contains("only the first unlock after a boot"),
            "\(afterLock.stderr)")
        try expectSuccess(m.device("reboot"))
        try expectSuccess(m.cli(["device", "unlock", "--tpm", "--mount", m.mount]))
        #expect(m.cli(["status", "--mount", m.mount]).stdout.contains("state: unlocked"))
        // A changed passcode: the boot unlock is sealed anew for it.
        try expectSuccess(
            m.cli(["device", "passcode", "change", "--mount", m.mount, "--passcode-stdin"], stdin: "1234\n5678\n"))
        m.unmount()
        let foreground = try #require(
            Command.start(
                MountedVault.binary,
                ["mount", m.vault, m.mount, "--foreground", "--tpm-unlock", "--default-accessible", "ck"]))
        defer {
            close(foreground.stdout)
            var status: Int32 = 0
            if waitpid(foreground.pid, &status, WNOHANG) == 0 {
                m.unmount()
                kill(foreground.pid, SIGKILL)
                while waitpid(foreground.pid, &status, 0) < 0 && errno == EINTR {}
            }
        }
        #expect(m.wait(30) { m.isMounted && m.cli(["status", "--mount", m.mount]).succeeded })
        #expect(m.cli(["status", "--mount", m.mount]).stdout.contains("state: unlocked"))
        #expect(try String(contentsOfFile: m.path("genp/svc/acct/value"), encoding: .utf8) == "s3cret")
        m.unmount()

        try Self.extendPCR16(tpm)
        let changed = m.remount(["--tpm-unlock"])
        try expectSuccess(changed)
        #expect(
            changed.stderr.contains("warning: --tpm-unlock")
                && changed.stderr.contains("the boot state changed: PCRs 16"), "\(changed.stderr)")
        #expect(m.cli(["status", "--mount", m.mount]).stdout.contains("state: before-first-unlock"))
        #expect((try? String(contentsOfFile: m.path("genp/svc/acct/value"), encoding: .utf8)) == nil)
        let again = m.cli(["device", "unlock", "--tpm", "--mount", m.mount])
        #expect(again.status != 0 && again.stderr.contains("errSecInteractionNotAllowed"), "\(again.stderr)")
        try expectSuccess(m.device("unlock", passcode: "5678"))
        #expect(try String(contentsOfFile: m.path("genp/svc/acct/value"), encoding: .utf8) == "s3cret")

        // Disabled: the seal is gone, and --tpm-unlock says so.
        try expectSuccess(m.cli(["device", "boot-unlock", "disable", "--mount", m.mount]))
        #expect(!m.cli(["status", "--mount", m.mount]).stdout.contains("boot unlock"))
        #expect(!(try String(contentsOfFile: m.vault + "/keybag", encoding: .utf8)).contains("bootUnlock"))
        m.unmount()
        let off = m.remount(["--tpm-unlock"])
        #expect(off.stderr.contains("boot unlock is not enabled"), "\(off.stderr)")
        #expect(m.cli(["status", "--mount", m.mount]).stdout.contains("state: before-first-unlock"))
    }

    /// The test above with the boot-state policy switched off (sealed to no PCR): a changed boot state
    /// unlocks, so that test can fail.
    @Test func withoutTheBootStatePolicyAChangedBootUnlocks() throws {
        let tpm = try SoftwareTPM()
        let m = try Self.bootUnlockVault(tpm, initEnvironment: ["KEYCHAINFS_TEST_DISABLE_GUARDS": "boot-unlock-pcrs"])
        try Self.extendPCR16(tpm)
        try expectSuccess(m.remount(["--tpm-unlock"]))
        #expect(m.cli(["status", "--mount", m.mount]).stdout.contains("state: unlocked"))
    }

    /// Boot unlock needs a TPM vault, a passcode and the passcode; bad PCRs are refused by the CLI.
    @Test func bootUnlockRefusesWhatItCannotSeal() throws {
        let plain = try MountedVault()
        try expectSuccess(plain.device("passcode", "set", passcode: "1234"))
        let noTPM = plain.cli(
            ["device", "boot-unlock", "enable", "--mount", plain.mount, "--passcode-stdin"], stdin: "1234\n")
        #expect(
            noTPM.status != 0 && noTPM.stderr.contains("needs a vault whose device key the TPM seals"),
            "\(noTPM.stderr)")
        let tpm = try SoftwareTPM()
        let m = try MountedVault(initArguments: ["--test-device", "--tpm", "--tpm-tcti", tpm.tcti])
        let noPasscode = m.cli(
            ["device", "boot-unlock", "enable", "--mount", m.mount, "--passcode-stdin"], stdin: "1234\n")
        #expect(noPasscode.status != 0 && noPasscode.stderr.contains("no passcode is set"), "\(noPasscode.stderr)")
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        let wrong = m.cli(["device", "boot-unlock", "enable", "--mount", m.mount, "--passcode-stdin"], stdin: "9999\n")
        #expect(wrong.status != 0 && wrong.stderr.contains("the passcode is not correct"), "\(wrong.stderr)")
        let bad = m.cli(
            ["device", "boot-unlock", "enable", "--mount", m.mount, "--tpm-pcrs", "7,99", "--passcode-stdin"],
            stdin: "1234\n")
        #expect(bad.status == 64, "\(bad.stderr)")
        #expect(!(try String(contentsOfFile: m.vault + "/keybag", encoding: .utf8)).contains("bootUnlock"))
    }

    /// A TPM that stops answering (swtpm stopped with SIGSTOP) fails the call within the deadline
    /// (`KEYCHAINFS_TPM_TIMEOUT`, 2 s here) and never hangs the daemon; once it answers again, so does the vault.
    @Test func aTPMThatStopsAnsweringFailsWithinTheDeadline() throws {
        let tpm = try SoftwareTPM()
        let m = try MountedVault(
            initArguments: ["--test-device", "--tpm", "--tpm-tcti", tpm.tcti],
            mountEnvironment: ["KEYCHAINFS_TPM_TIMEOUT": "2"])
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        kill(tpm.pid, SIGSTOP)
        let stalled = m.device("unlock", passcode: "1234")
        kill(tpm.pid, SIGCONT)
        #expect(stalled.status != 0 && stalled.stderr.contains("did not answer within 2 s"), "\(stalled.stderr)")
        #expect(m.cli(["status", "--mount", m.mount]).stdout.contains("failed attempts: 0"), "not a wrong passcode")
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(m.cli(["status", "--mount", m.mount]).stdout.contains("state: unlocked"))
    }

    /// A recovery public key planted in vault.json (so that the next passcode's share would be sealed to an
    /// attacker's key) is refused: its tag under the device key does not match; the passcode is not set.
    @Test func aPlantedRecoveryPublicKeyGetsNoShare() throws {
        let tpm = try SoftwareTPM()
        let recovery = TestDirectory.root + "/planted-recovery-\(UUID().uuidString.prefix(8))"
        let m = try MountedVault(initArguments: [
            "--test-device", "--tpm", "--tpm-tcti", tpm.tcti, "--recovery-key", recovery,
        ])
        m.unmount()
        let configPath = m.vault + "/vault.json"
        var config = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: configPath))) as? [String: Any]
        )
        #expect(config["recoveryPublicKey"] != nil && config["recoveryPublicKeyTag"] != nil)
        config["recoveryPublicKey"] = Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configPath))
        try expectSuccess(m.remount())
        let set = m.device("passcode", "set", passcode: "1234")
        #expect(set.status != 0 && set.stderr.contains("is not this vault's"), "\(set.stderr)")
        #expect(m.cli(["status", "--mount", m.mount]).stdout.contains("passcode: not set"))
    }
}
