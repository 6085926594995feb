import Foundation
import Testing
import KeychainFSTestSupport

/// `keychainfs run` and `inject` (docs/spec.md §13) through a running daemon, so the device lock applies.
@Suite struct WorkflowTests {
    func keychainfs(_ arguments: [String], vault: String) -> CommandResult {
        Command.run(
            MountedVault.binary, arguments, environment: ["KEYCHAIN_VAULT": vault, "KEYCHAIN_ACCESS_GROUPS": ""])
    }

    func mountedWithItem() throws -> MountedVault {
        let m = try MountedVault()
        try expectSuccess(
            keychainfs(
                [
                    "add-generic-password", "-s", "com.example.api", "-a", "deploy", "-w", "s3cret-token", "-l",
                    "Deploy key",
                ], vault: m.vault))
        return m
    }

    @Test func runGivesTheChildItsVariablesAndItsExitStatus() throws {
        let m = try mountedWithItem()
        let result = keychainfs(
            [
                "run", "--env", "TOKEN=kc://genp/com.example.api/deploy", "--env",
                "LABEL=kc://genp/com.example.api/deploy#kSecAttrLabel",
                "--env", "PLAIN=literal", "--", "/bin/sh", "-c",
                "printf '%s|%s|%s' \"$TOKEN\" \"$LABEL\" \"$PLAIN\"; exit 7",
            ], vault: m.vault)
        #expect(result.status == 7)
        #expect(result.stdout == "s3cret-token|Deploy key|literal")
        #expect(!result.stderr.contains("s3cret"))
    }

    @Test func runReadsAnEnvFile() throws {
        let m = try mountedWithItem()
        let file = m.root + "/app.env"
        try "# comment\nexport TOKEN=\"kc://genp/com.example.api/deploy\"\nMODE=prod\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let result = keychainfs(
            ["run", "--env-file", file, "--", "/bin/sh", "-c", "printf '%s %s' \"$TOKEN\" \"$MODE\""], vault: m.vault)
        #expect(result.succeeded && result.stdout == "s3cret-token prod")
    }

    @Test func aLockedItemStopsTheCommandBeforeItStarts() throws {
        let m = try mountedWithItem()
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        let marker = m.root + "/started"
        let result = keychainfs(
            ["run", "--env", "TOKEN=kc://genp/com.example.api/deploy", "--", "/usr/bin/touch", marker], vault: m.vault)
        #expect(result.status == 36, "errSecInteractionNotAllowed: exit 36 (docs/workflows.md)")
        #expect(
            result.stderr.contains("kc://genp/com.example.api/deploy") && result.stderr.contains("Permission denied"))
        #expect(!FileManager.default.fileExists(atPath: marker), "the command never started")
        let missing = keychainfs(
            ["run", "--env", "T=kc://genp/com.example.api/nobody", "--", "/usr/bin/touch", marker], vault: m.vault)
        #expect(missing.status == 44 && !FileManager.default.fileExists(atPath: marker))
        let malformed = keychainfs(
            ["run", "--env", "T=kc://genp/only-two", "--", "/usr/bin/touch", marker], vault: m.vault)
        #expect(malformed.status == 64 && !FileManager.default.fileExists(atPath: marker))
    }

    @Test func theChildsSignalPassesThrough() throws {
        let m = try mountedWithItem()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: MountedVault.binary)
        process.arguments = [
            "run", "--vault", m.vault, "--env", "TOKEN=kc://genp/com.example.api/deploy", "--", "/bin/sh", "-c",
            "kill -TERM $$",
        ]
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.run()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
    }

    /// docs/workflows.md: `nohup keychainfs run -- CMD` leaves CMD's SIGHUP ignored, as `nohup env CMD` does;
    /// the signal mask is emptied (this test's thread blocks every signal, and so would its children).
    @Test func runKeepsTheSignalsItsParentIgnored() throws {
        let show = ["grep", "-E", "^Sig(Ign|Blk)", "/proc/self/status"]
        for parent in ["trap '' HUP INT;", ""] {
            let viaEnv = Command.run("/bin/sh", ["-c", parent + " exec env \"$@\"", "sh"] + show)
            let viaRun = Command.run(
                "/bin/sh",
                ["-c", parent + " exec \"$@\"", "sh", MountedVault.binary, "run", "--env", "A=1", "--"] + show)
            try expectSuccess(viaEnv)
            let ignored = { (result: CommandResult) in
                result.stdout.split(separator: "\n").filter { $0.hasPrefix("SigIgn") }
            }
            #expect(
                viaRun.succeeded && ignored(viaRun) == ignored(viaEnv),
                "parent \(parent.debugDescription): \(viaRun.stdout) \(viaRun.stderr)")
            #expect(viaRun.stdout.contains("SigBlk:\t0000000000000000"), "\(viaRun.stdout)")
        }
        let hangup = Command.run(
            "/bin/sh",
            ["-c", "trap '' HUP; exec \"$0\" run -- /bin/sh -c 'kill -HUP $$; echo alive'", MountedVault.binary])
        #expect(
            hangup.status == 0 && hangup.stdout == "alive\n", "a hangup does not kill the command: \(hangup.status)")
    }

    /// A template or env file over 1 MiB is refused before it is parsed, without reading the rest.
    /// (/dev/zero and FIFOs are not regular files and are refused before that: BoundedInputTests.)
    @Test func anOversizedTemplateOrEnvFileIsRefusedAtOnce() throws {
        let big = TestDirectory.root + "/kcfs-big-" + UUID().uuidString.prefix(8)
        #expect(FileManager.default.createFile(atPath: big, contents: nil) && truncate(big, 64 << 20) == 0)
        defer { unlink(big) }
        let start = Date()
        let inject = Command.run(MountedVault.binary, ["inject", "-i", big], timeout: 20)
        #expect(inject.status == 64 && inject.stderr.contains("larger than 1 MiB"), "\(inject.status) \(inject.stderr)")
        let run = Command.run(MountedVault.binary, ["run", "--env-file", big, "--", "/bin/true"], timeout: 20)
        #expect(run.status == 64 && run.stderr.contains("larger than 1 MiB"), "\(run.status) \(run.stderr)")
        #expect(Date().timeIntervalSince(start) < 10)
    }

    @Test func injectWritesA0600FileAtomicallyAndOnlyOverItsOwn() throws {
        let m = try mountedWithItem()
        let template = m.root + "/app.conf.tpl", output = m.root + "/app.conf"
        try
            "token = {{ kc://genp/com.example.api/deploy }}\naccount = {{kc://genp/com.example.api/deploy#kSecAttrAccount}}\nkeep {{ this }}\n"
            .write(toFile: template, atomically: true, encoding: .utf8)
        try expectSuccess(keychainfs(["inject", "-i", template, "-o", output], vault: m.vault))
        #expect(FS.text(output) == "token = s3cret-token\naccount = deploy\nkeep {{ this }}\n")
        let mode = try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // Its own file is replaced; nothing temporary is left beside it.
        try expectSuccess(keychainfs(["inject", "-i", template, "-o", output], vault: m.vault))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: m.root).filter { $0.contains("keychainfs-") }.isEmpty)
        // Someone else's file is not, unless forced.
        let foreign = m.root + "/foreign.conf"
        try "mine\n".write(toFile: foreign, atomically: true, encoding: .utf8)
        #expect(keychainfs(["inject", "-i", template, "-o", foreign], vault: m.vault).status != 0)
        #expect(FS.text(foreign) == "mine\n")
        try expectSuccess(keychainfs(["inject", "-i", template, "-o", foreign, "--force"], vault: m.vault))
        #expect(FS.text(foreign)?.hasPrefix("token = s3cret-token") == true)
    }

    @Test func injectWritesNothingWhenAReferenceFails() throws {
        let m = try mountedWithItem()
        let template = m.root + "/t.tpl", output = m.root + "/out.conf"
        try "a = {{ kc://genp/com.example.api/deploy }}\nb = {{ kc://genp/com.example.api/missing }}\n".write(
            toFile: template, atomically: true, encoding: .utf8)
        let result = keychainfs(["inject", "-i", template, "-o", output], vault: m.vault)
        #expect(result.status == 44 && result.stderr.contains("kc://genp/com.example.api/missing"))
        #expect(!FileManager.default.fileExists(atPath: output))
        try "a = {{ kc://genp/com.example.api/deploy\n".write(toFile: template, atomically: true, encoding: .utf8)
        #expect(keychainfs(["inject", "-i", template, "-o", output], vault: m.vault).status == 64)
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
