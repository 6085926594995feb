import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// Vaults and a local bare repository in a scratch directory, driven through the CLI (as users do) and
/// through KeychainConnection for items.
final class SyncGroup {
    let root: String
    let remote: String
    private(set) var vaults: [String] = []

    /// `headBranch` is what the bare repository's HEAD names (a host's default need not be `main`).
    init(headBranch: String = "main") throws {
        root = TestDirectory.root + "/kcfs-sync-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        remote = root + "/remote.git"
        try expectSuccess(Command.run("/usr/bin/git", ["init", "-q", "--bare", "-b", headBranch, remote]))
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// A new vault without a passcode.
    func makeVault(_ name: String) throws -> String {
        let path = root + "/" + name
        _ = try Vault.create(at: path, testDevice: true)
        vaults.append(path)
        return path
    }

    /// `environment` adds to the CLI's (e.g. KEYCHAINFS_TEST_DISABLE_GUARDS).
    func cli(_ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil) -> CommandResult {
        Command.run(MountedVault.binary, arguments, stdin: stdin, environment: environment, timeout: 120)
    }

    func sync(_ vault: String) throws {
        try expectSuccess(cli(["sync", "--vault", vault]))
    }

    /// `sync init` of `vault`, named by its directory's name.
    func found(_ vault: String) throws {
        try expectSuccess(
            cli(["sync", "init", remote, "--vault", vault, "--name", (vault as NSString).lastPathComponent]))
    }

    /// Makes `vault` a member: an invitation from `member`, joined with the code on standard input (named by
    /// its directory's name), admitted by the inviter's next sync, the items brought by the joiner's.
    func join(_ vault: String, invitedBy member: String) throws {
        let invite = cli(["sync", "invite", "--vault", member])
        try expectSuccess(invite)
        try expectSuccess(
            cli(
                [
                    "sync", "join", remote, "--vault", vault, "--code-stdin", "--name",
                    (vault as NSString).lastPathComponent,
                ],
                stdin: invite.stdout))
        let admitted = cli(["sync", "--vault", member])
        try expectSuccess(admitted)
        #expect(
            admitted.stdout.contains("admitted \((vault as NSString).lastPathComponent)"),
            "the inviter admits the joiner: \(admitted.stdout)")
        try sync(vault)
    }

    /// Someone with push access to the host: clones `main`, runs `edit` in the work tree, commits and pushes.
    func pushAsHost(_ label: String, _ edit: (String) throws -> Void) throws {
        let work = root + "/host-" + label
        try expectSuccess(Command.run("/usr/bin/git", ["clone", "-q", "-b", "main", remote, work]))
        try edit(work)
        for args in [
            ["add", "-A"], ["-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "-m", label],
            ["push", "-q", "origin", "HEAD:main"],
        ] {
            try expectSuccess(Command.run("/usr/bin/git", ["-C", work] + args))
        }
    }

    func connection(_ vault: String) throws -> KeychainConnection {
        try KeychainConnection(vault: Vault(directory: vault), caller: Caller())
    }

    /// The secret of the synchronizable generic password (service, account), or nil.
    func secret(_ vault: String, service: String, account: String) throws -> String? {
        let query: KeychainDictionary = [
            "class": "genp", "svce": .string(service), "acct": .string(account),
            "sync": "syna", "r_Data": true,
        ]
        do {
            guard case .data(let d)? = try connection(vault).copyMatching(query) else { return nil }
            return String(decoding: d, as: UTF8.self)
        } catch let error as KeychainError where error.status == SecStatus.itemNotFound {
            return nil
        }
    }

    func add(
        _ vault: String, service: String, account: String, secret: String, label: String, accessible: String = "ck",
        synchronizable: Bool = true
    ) throws {
        _ = try connection(vault).add([
            "class": "genp", "svce": .string(service), "acct": .string(account), "labl": .string(label),
            "pdmn": .string(accessible), "sync": .bool(synchronizable), "v_Data": .data(Data(secret.utf8)),
        ])
    }

    func update(_ vault: String, service: String, account: String, _ changes: KeychainDictionary) throws {
        try connection(vault).update(
            ["class": "genp", "svce": .string(service), "acct": .string(account), "sync": "syna"], changes)
    }

    func delete(_ vault: String, service: String, account: String) throws {
        try connection(vault).delete([
            "class": "genp", "svce": .string(service), "acct": .string(account), "sync": "syna",
        ])
    }

    /// Everything the bare repository holds, as bytes: its files, and git's own view of every revision.
    func repositoryText() -> String {
        var out = ""
        if let walker = FileManager.default.enumerator(atPath: remote) {
            for case let file as String in walker {
                if let data = FileManager.default.contents(atPath: remote + "/" + file) {
                    out += String(decoding: data, as: UTF8.self)
                }
            }
        }
        out +=
            Command.run("/usr/bin/git", ["-C", remote, "log", "-p", "--all", "--text", "--format=%an %ae %s %b"]).stdout
        let revisions = Command.run("/usr/bin/git", ["-C", remote, "rev-list", "--all"]).stdout.split(separator: "\n")
            .map(String.init)
        for revision in revisions {
            out += Command.run("/usr/bin/git", ["-C", remote, "ls-tree", "-r", revision]).stdout
        }
        return out
    }
}
