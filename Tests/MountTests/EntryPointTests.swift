import KeychainFSControlChannel
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// docs/spec.md §17 and its table (docs/entry-points.md): every entry point that reaches a
/// secret, an item, a prompt or the device refuses a process that no rule of access.toml matches on a
/// `--strict` mount; the same probes succeed once a rule matches and allows them, so the refusals are the
/// rules', not broken probes'.
@Suite(.serialized) struct EntryPointTests {
    static let secret = "walk-secret"

    /// The ids of docs/entry-points.md whose "unmatched, --strict" column says refused.
    static func refusedRows() throws -> [String] {
        try rows(where: "unmatched, --strict") { $0.hasPrefix("refused") }
    }

    /// The ids of docs/entry-points.md's rows whose `column` cell `matches`.
    static func rows(where column: String, _ matches: (String) -> Bool) throws -> [String] {
        let doc = try String(contentsOfFile: Self.repository + "/docs/entry-points.md", encoding: .utf8)
        var header: [String] = []
        var ids: [String] = []
        for line in doc.split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast().map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            if cells.first == "id" { header = cells; continue }
            guard let idCell = cells.first, idCell.hasPrefix("`"),
                let index = header.firstIndex(of: column), index < cells.count
            else { continue }
            if matches(cells[index]) {
                ids.append(idCell.trimmingCharacters(in: CharacterSet(charactersIn: "`")))
            }
        }
        return ids
    }

    static let repository: String = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" && !FileManager.default.fileExists(atPath: directory.path + "/Package.swift") {
            directory.deleteLastPathComponent()
        }
        return directory.path
    }()

    /// A vault with a password, an internet password, git's and Docker's credentials; then mounted --strict
    /// with rules that match other programs only.
    static func strictVault(mountEnvironment: [String: String]? = nil) throws -> MountedVault {
        let m = try MountedVault()  // no passcode: always unlocked, so the remounted daemon serves at once
        let env = ["KEYCHAIN_VAULT": m.vault]
        try expectSuccess(
            Command.run(
                MountedVault.binary, ["add-generic-password", "-s", "svc", "-a", "acct", "-w", secret], environment: env
            ))
        try expectSuccess(
            Command.run(
                MountedVault.builtProgram("git-credential-keychainfs"), ["store"],
                stdin: "protocol=https\nhost=git.example\nusername=u\npassword=\(secret)\n\n", environment: env))
        try expectSuccess(
            Command.run(
                MountedVault.builtProgram("docker-credential-keychainfs"), ["store"],
                stdin: "{\"ServerURL\":\"https://reg.example\",\"Username\":\"u\",\"Secret\":\"\(secret)\"}",
                environment: env))
        m.unmount()
        try serveBus(m, ["--strict", "--audit-log", auditLog(m)], environment: mountEnvironment)
        let other = m.root + "/other-program"
        try FileManager.default.copyItem(atPath: "/bin/true", toPath: other)
        try expectSuccess(
            m.cli([
                "access", "grant", "default", "--exe", other, "--allow", "device", "--allow", "prompts", "--allow",
                "vault", "--vault", m.vault,
            ]))
        return m
    }

    /// One probe per row: true when the entry point refused (or gave nothing), with what it said.
    typealias Probe = @Sendable (MountedVault) -> (refused: Bool, detail: String)

    static func control(_ command: ControlCommand, _ arguments: KeychainDictionary = [:], attachment: Data? = nil)
        -> Probe
    {
        { m in
            do {
                let response = try m.control.send(ControlRequest(command, arguments, attachment: attachment))
                return (response.status == SecStatus.missingEntitlement, "\(response.status) \(response.message)")
            } catch { return (false, "\(error)") }
        }
    }

    static func cli(_ arguments: [String], stdin: String? = nil) -> Probe {
        cli(MountedVault.binary, arguments, stdin: stdin)
    }

    static func cli(_ program: String, _ arguments: [String], stdin: String? = nil) -> Probe {
        { m in
            let r = Command.run(program, arguments, stdin: stdin, environment: ["KEYCHAIN_VAULT": m.vault], timeout: 30)
            return (!r.succeeded && !r.stdout.contains(secret), "exit \(r.status): \(r.stdout) \(r.stderr)")
        }
    }

    static let query: KeychainDictionary = ["class": "genp", "svce": "svc", "acct": "acct"]

    static let probes: [String: Probe] = [
        "fs.read": { m in
            let r = FS.read(m.path("genp/svc/acct/value"))
            return (r == .failure(Errno(EACCES)), "\(r)")
        },
        "fs.write": { m in
            let e = FS.mkdir(m.path("genp/svc/new-by-unmatched"))
            return (e == EACCES, "mkdir errno \(e)")
        },
        "fs.list": { m in
            let listed = (try? FileManager.default.contentsOfDirectory(atPath: m.path("genp/svc"))) ?? []
            return (listed.isEmpty, "\(listed)")
        },
        "item.add": control(
            .itemAdd, ["query": .dictionary(query.merging(["acct": "other", "v_Data": .data(Data("x".utf8))]) { $1 })]),
        "item.copy-matching": control(
            .itemCopyMatching, ["query": .dictionary(query.merging(["r_Data": true]) { $1 })]),
        "item.update": control(
            .itemUpdate, ["query": .dictionary(query), "attributes": .dictionary(["v_Data": .data(Data("y".utf8))])]),
        "item.delete": control(.itemDelete, ["query": .dictionary(query)]),
        "item.add-identity": control(
            .itemAddIdentity,
            [
                "certificate": .dictionary(["class": "cert", "v_Data": .data(Data("not DER".utf8))]),
                "key": .dictionary(["class": "keys", "kcls": 1, "v_Data": .data(Data("k".utf8))]),
            ]),
        "key.secure-enclave": control(.keySecureEnclave, ["request": .dictionary(["operation": "sign"])]),
        "la.evaluate": control(.laEvaluate, ["policy": .number(1)]),
        "la.invalidate": control(.laInvalidate, ["token": .data(Data(count: 16))]),
        "device.lock": control(.deviceLock),
        "device.unlock": control(.deviceUnlock, ["passcode": .data(Data("1234".utf8))]),
        "device.unlock.biometry": control(.unlockBiometry),
        "device.reboot": control(.deviceReboot),
        "device.passcode": control(.passcodeRemove, ["passcode": .data(Data("1234".utf8))]),
        "device.auto-lock": control(.autoLock, ["seconds": .number(60)]),
        "device.boot-unlock": control(.bootUnlockEnable, ["passcode": .data(Data("1234".utf8)), "pcrs": "7"]),
        "device.unlock.tpm": control(.unlockTPM),
        "device.biometry": control(.biometryEnroll),
        "unmount": control(.unmount),
        "device.prompts": control(.prompts),
        "device.prompt": control(.promptAuto, ["mode": "match"]),
        "vault.backup": control(.backup, ["password": .data(Data("pw".utf8))]),
        "vault.restore": control(
            .restore, ["password": .data(Data("pw".utf8)), "merge": true], attachment: Data("KCFSBAK1".utf8)),
        "sync.init": control(.syncInit, ["remote": "/nonexistent/remote.git"]),
        "sync.join": control(.syncJoin, ["remote": "/nonexistent/remote.git", "code": "x"]),
        "sync.invite": control(.syncInvite),
        "sync.now": control(.syncNow),
        "sync.merge": control(.syncMerge, ["name": "x", "ours": .data(Data()), "theirs": .data(Data())]),
        "sync.remove": control(.syncRemove, ["member": "x"]),
        "sync.rotate": control(.syncRotate),
        "sync.leave": control(.syncLeave),
        "api.secitem": { m in
            do {
                _ = try KeychainConnection(vault: Vault(directory: m.vault), caller: Caller()).copyMatching(
                    query.merging(["r_Data": true]) { $1 })
                return (false, "read")
            } catch let error as KeychainError {
                return (error.status == SecStatus.missingEntitlement, "\(error)")
            } catch { return (false, "\(error)") }
        },
        "cli.find": cli(["find-generic-password", "-s", "svc", "-a", "acct", "-w"]),
        "cli.dump": cli(["dump-keychain", "-d"]),
        "cli.export": cli(["export", "-t", "all", "-f", "pemseq"]),
        "cli.add": cli(["add-generic-password", "-s", "svc2", "-a", "acct", "-w", "x"]),
        "cli.delete": cli(["delete-generic-password", "-s", "svc", "-a", "acct"]),
        "cli.run": cli(["run", "--env", "X=kc://genp/svc/acct", "--", "/usr/bin/printenv", "X"]),
        "cli.inject": cli(["inject", "-i", "/dev/stdin"], stdin: "{{ kc://genp/svc/acct }}"),
        "helper.git": cli(
            MountedVault.builtProgram("git-credential-keychainfs"), ["get"],
            stdin: "protocol=https\nhost=git.example\n\n"),
        "helper.docker": cli(
            MountedVault.builtProgram("docker-credential-keychainfs"), ["get"], stdin: "https://reg.example"),
        "dbus.get-secret": bus("dbus.get-secret"),
        "dbus.search": bus("dbus.search"),
        "dbus.write": bus("dbus.write"),
        "dbus.lock": bus("dbus.lock"),
        "dbus.unlock": bus("dbus.unlock"),
        "dbus.session": bus("dbus.session"),
    ]

    @Test(.timeLimit(.minutes(3))) func everyRowThatReachesASecretRefusesAnUnmatchedProcessUnderStrict() throws {
        let rows = try Self.refusedRows()
        #expect(rows.count >= 30, "the table has its rows: \(rows)")
        let m = try Self.strictVault()
        let state = m.cli(["device", "status", "--mount", m.mount]).stdout
        for id in rows {
            guard let probe = Self.probes[id] else {
                Issue.record("docs/entry-points.md row \(id) has no probe in EntryPointTests")
                continue
            }
            let (refused, detail) = probe(m)
            #expect(refused, "\(id) was not refused: \(detail)")
        }
        // Status is answered, without the item counts.
        let status = try m.control.send(ControlRequest(.status)).check()?.dictionaryValue
        #expect(status?["state"] != nil && status?["items"] == nil, "\(String(describing: status))")
        // Nothing the probes tried changed the vault or the device.
        #expect(m.cli(["device", "status", "--mount", m.mount]).stdout == state)
        #expect(FS.read(m.path("genp/svc/acct/value")) == .failure(Errno(EACCES)))
        #expect(m.control.isDaemonRunning)
    }

    /// The same probes succeed for a process a rule matches and allows: the refusals above are the rules'.
    @Test(.timeLimit(.minutes(3))) func aMatchingRuleWithItsPermissionOpensTheSameEntryPoints() throws {
        let m = try Self.strictVault()
        try expectSuccess(
            m.cli([
                "access", "grant", "default", "--uid", "\(getuid())", "--allow", "device", "--allow", "vault",
                "--vault", m.vault,
            ]))
        #expect(FS.read(m.path("genp/svc/acct/value")) == .success(Data(Self.secret.utf8)))
        let find = Command.run(
            MountedVault.binary, ["find-generic-password", "-s", "svc", "-a", "acct", "-w"],
            environment: ["KEYCHAIN_VAULT": m.vault])
        #expect(find.stdout == Self.secret + "\n", "\(find.stderr)")
        let backup = m.cli(
            ["backup", m.root + "/b.kcfs", "--mount", m.mount, "--password-stdin"], stdin: "backup pw\n")
        #expect(backup.succeeded, "\(backup.stderr)")
        #expect(m.device("lock").succeeded)
        // `prompts` was not allowed: a rule's permissions are exactly its own.
        let prompts = m.cli(["device", "prompts", "--mount", m.mount])
        #expect(!prompts.succeeded && prompts.stderr.contains("allow"), "\(prompts.stderr)")
    }

    /// With the daemon's checks of control commands switched off (a test device's test switch), the same walk
    /// reads secrets and changes the device through the socket: the test above can fail.
    @Test(.timeLimit(.minutes(3))) func theWalkFailsWithTheControlChecksSwitchedOff() throws {
        let m = try Self.strictVault(mountEnvironment: [LockGuardsName.variable: "control-access"])
        for id in [
            "item.copy-matching", "api.secitem", "cli.find", "cli.run", "vault.backup", "device.prompts", "device.lock",
            "dbus.get-secret", "dbus.search", "dbus.write", "dbus.session",
        ] {
            let probe = try #require(Self.probes[id])
            let (refused, detail) = probe(m)
            #expect(!refused, "\(id) is refused even with the checks off: \(detail)")
        }
    }

    /// The lock column of the Secret Service rows: on a locked device a client the rules admit gets IsLocked
    /// for a secret or a write and finds no item (the attributes are sealed too); nothing changes. Unlocked,
    /// the same calls are served, so the refusals are the lock's.
    @Test(.timeLimit(.minutes(3))) func theBusRowsWithALockRefuseEveryCallWhileLocked() throws {
        let locked = try Self.rows(where: "lock") { $0.hasPrefix("yes") }.filter { $0.hasPrefix("dbus.") }
        #expect(Set(locked) == ["dbus.get-secret", "dbus.search", "dbus.write"], "\(locked)")
        let m = try MountedVault()
        try expectSuccess(m.cli(["add-generic-password", "-s", "svc", "-a", "acct", "-w", Self.secret, m.vault]))
        m.unmount()
        try Self.serveBus(m, [])
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        let path = Self.busClient(m, ["item-path", "service=svc", "username=acct"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(path.hasPrefix("/org/freedesktop/secrets/collection/login/"), "\(path)")

        try expectSuccess(m.device("lock"))
        let whileLocked = Self.busClient(m, ["while-locked", path])
        let answers = whileLocked.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(whileLocked.succeeded && answers.count == 7, "\(whileLocked)")
        #expect(Set(answers.compactMap(\.first)) == Set(locked), "every locked row is probed: \(answers)")
        for answer in answers where answer.count >= 3 {
            let expected =
                ["SearchItems", "Collection.SearchItems", "Items"].contains(answer[1])
                ? "ok 0" : "org.freedesktop.Secret.Error.IsLocked"
            #expect(answer[2...].joined(separator: " ") == expected, "\(answer)")
        }
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(FS.read(m.path("genp/svc/acct/value")) == .success(Data(Self.secret.utf8)), "nothing changed")
        #expect(FS.read(m.path("genp/locked/new/value")) == .failure(Errno(ENOENT)), "nothing was made")

        let unlocked = Self.busClient(m, ["while-locked", path]).stdout.split(separator: "\n").map {
            $0.split(separator: " ").map(String.init)
        }
        #expect(unlocked.count == 7 && unlocked.allSatisfy { $0.count == 4 && $0[2] == "ok" }, "\(unlocked)")
        for answer in unlocked where answer.count == 4 && answer[1].hasSuffix("Items") {
            #expect(answer[3] != "0", "unlocked, the item is found: \(answer)")
        }
    }

    /// Without --strict, a caller no rule matches keeps the device commands, but not the vault's bulk
    /// commands while rules exist: a backup would hold other groups' items.
    @Test(.timeLimit(.minutes(2))) func withRulesABackupNeedsTheVaultPermissionEvenWithoutStrict() throws {
        let m = try MountedVault()
        try expectSuccess(m.cli(["add-generic-password", "-s", "svc", "-a", "acct", "-w", Self.secret, m.vault]))
        let before = m.cli(["backup", m.root + "/before.kcfs", "--mount", m.mount, "--password-stdin"], stdin: "pw\n")
        #expect(before.succeeded, "no rules: the user's own processes are the owner: \(before.stderr)")
        try expectSuccess(m.cli(["access", "grant", "a", "--exe", "/bin/true", "--vault", m.vault]))
        let after = m.cli(["backup", m.root + "/after.kcfs", "--mount", m.mount, "--password-stdin"], stdin: "pw\n")
        #expect(!after.succeeded && after.stderr.contains("allow"), "\(after.stderr)")
        #expect(!FileManager.default.fileExists(atPath: m.root + "/after.kcfs"))
        #expect(m.device("lock").succeeded, "device commands stay open without --strict")
    }
}
