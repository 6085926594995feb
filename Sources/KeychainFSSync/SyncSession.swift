import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium

/// How a sync session reaches the vault's engine: the daemon's own, or an in-process one held for one
/// call at a time (never across a git call, so the merge driver git starts can reach it too).
package protocol SyncKeychainAccess: Sendable {
    /// Runs `body` with the engine.
    func with<T>(_ body: (Keychain) throws(KeychainError) -> T) throws(KeychainError) -> T
}

/// What one `keychainfs sync` did.
package struct SyncReport: Sendable {
    /// Item files written (new versions and tombstones).
    package var exported = 0
    /// Incoming versions applied to the vault.
    package var imported = 0
    /// Files that could not be read or applied, each with a message that names no item.
    package var skipped: [String] = []
    /// Expired invitations removed.
    package var expiredInvitations = 0
    /// Whether a commit was pushed.
    package var pushed = false
    /// Whether this vault is a member holding the current epoch's key (else it waits for admission).
    package var admitted = false
    /// Whether the remote's branch had moved back to an older commit (reported in `notes`, nothing applied).
    package var rolledBack = false
    /// What else happened, for people: a joiner admitted, a new epoch, a request waiting, a rewound remote.
    package var notes: [String] = []

    package init() {}

    /// The report from its control value (what the daemon answered).
    package init(_ d: KeychainDictionary) {
        let strings = { (key: String) in (d[key]?.arrayValue ?? []).compactMap(\.stringValue) }
        exported = Int(d["exported"]?.numberValue ?? 0)
        imported = Int(d["imported"]?.numberValue ?? 0)
        skipped = strings("skipped")
        expiredInvitations = Int(d["expiredInvitations"]?.numberValue ?? 0)
        pushed = d["pushed"] == .bool(true)
        admitted = d["admitted"] == .bool(true)
        rolledBack = d["rolledBack"] == .bool(true)
        notes = strings("notes")
    }

    /// The report as a control value (the daemon's answer; the CLI prints it).
    package var dictionary: KeychainDictionary {
        [
            "exported": .number(Int64(exported)), "imported": .number(Int64(imported)),
            "skipped": .array(skipped.map(KeychainValue.string)),
            "pushed": .bool(pushed), "expiredInvitations": .number(Int64(expiredInvitations)),
            "admitted": .bool(admitted),
            "rolledBack": .bool(rolledBack), "notes": .array(notes.map(KeychainValue.string)),
        ]
    }
}

/// Sync over git (docs/spec.md §14): init, invite, join and sync of one vault's clone at `sync/repo`; the
/// circle's commands are in SyncSession+Members, the checks of the remote in SyncSession+Verify.
package struct SyncSession: Sendable {
    package let access: any SyncKeychainAccess
    package let vault: Vault
    /// The merge driver command git runs (`<keychainfs> sync merge-driver --vault V`).
    package let driverCommand: String
    /// How many times a rejected push is retried after fetch and merge.
    package static let pushAttempts = 5
    package static let branch = "main"

    /// A session for `vault`; `executable` is the keychainfs program git calls as merge driver.
    package init(vault: Vault, access: any SyncKeychainAccess, executable: String) {
        self.vault = vault
        self.access = access
        driverCommand =
            "\(Self.quoted(executable)) sync merge-driver --vault \(Self.quoted(vault.directory)) %O %A %B %P"
    }

    package var clone: String { vault.directory + "/sync/repo" }
    package var statePath: String { vault.directory + "/sync/state.json" }
    package var versionsPath: String { vault.directory + "/sync/versions" }
    package var git: GitRunner { GitRunner(directory: clone) }
    package var untrusted: UntrustedTree {
        UntrustedTree(
            git: git, scratchIndex: clone + "/.git/keychainfs-scratch-index",
            filters: !SyncTestSwitch.disables(SyncTestSwitch.untrustedTree, vault))
    }

    /// `sync init REMOTE`: a new sync key, this vault's identity, the circle's genesis entry and first
    /// epoch key, the repository's header, the first push. A failed init leaves the vault as it was.
    package func initialize(remote: String, name: String) throws(KeychainError) -> SyncReport {
        try SyncLock.holding(vault) { () throws(KeychainError) -> SyncReport in
            try initializeHoldingLock(remote: remote, name: name)
        }
    }

    private func initializeHoldingLock(remote: String, name: String) throws(KeychainError) -> SyncReport {
        try requireNoSyncSetup()
        return try undoingOnFailure { () throws(KeychainError) -> SyncReport in
            try cloneRemote(remote)
            if FileManager.default.fileExists(atPath: clone + "/" + Self.headerName) {
                throw KeychainError(
                    SecStatus.duplicateItem,
                    "\(remote) already holds a keychainfs sync repository: use 'sync join' with an invitation code")
            }
            let files = try access.with { keychain throws(KeychainError) -> (log: Data, keyring: Data) in
                let key = GuardedKey.random()
                defer { key.wipe() }
                try keychain.installSyncKey(key)
                _ = try keychain.createSyncIdentity(name: name)
                return try keychain.foundSyncCircle()
            }
            try write(files.log, MemberLog.path)
            try write(files.keyring, EpochKeyring.path)
            try write(Data(Self.header.utf8), Self.headerName)
            return try syncHoldingLock()
        }
    }

    /// `sync join REMOTE`: opens the invitation for `code`, checks the repository's membership log against
    /// the one the invitation names, installs the sync key, makes this vault's identity and pushes its
    /// request, MACed with the code. The inviter's next sync admits it; this vault's next sync then gets the
    /// epoch key and the items. A join that fails leaves the vault as it was.
    package func join(remote: String, code: InvitationCode, name: String) throws(KeychainError) -> SyncReport {
        try SyncLock.holding(vault) { () throws(KeychainError) -> SyncReport in
            try joinHoldingLock(remote: remote, code: code, name: name)
        }
    }

    private func joinHoldingLock(remote: String, code: InvitationCode, name: String) throws(KeychainError) -> SyncReport
    {
        try requireNoSyncSetup()
        return try undoingOnFailure { () throws(KeychainError) -> SyncReport in
            try cloneRemote(remote)
            try requireCurrentFormat(origin: true)
            let refused = KeychainError(SecStatus.authFailed, "the invitation code is wrong or has expired")
            guard
                let bytes = try? RepositoryFile.read(
                    clone + "/\(InvitationFile.directory)/\(code.fileName)", limit: RepositoryFile.maxInvitationBytes)
            else {
                throw refused
            }
            let content: InvitationContent
            do { content = try InvitationFile.open(bytes, code: code) } catch { throw refused }
            defer { content.syncKey.wipe() }
            let log = try originFile(MemberLog.path, limit: MemberLog.maxBytes) ?? Data()
            let membership: Membership
            do { membership = try MemberLog.verify(log) } catch {
                throw KeychainError(SecStatus.decode, "the repository's membership log is refused (\(error))")
            }
            guard content.logCount >= 1, membership.entries.count >= content.logCount,
                membership.entries[content.logCount - 1].hash == content.logHead
            else {
                throw KeychainError(
                    SecStatus.decode,
                    "the repository's membership log is not the one the invitation names (another circle's, or an older one)"
                )
            }
            let me = try access.with { keychain throws(KeychainError) -> MemberKeys in
                try keychain.installSyncKey(content.syncKey)
                let me = try keychain.createSyncIdentity(name: name)
                _ = try keychain.trustIncoming(log: log, keyring: nil, remote: try originCommit() ?? "")
                return me
            }
            let requestKey = code.requestKey()
            defer { requestKey.wipe() }
            try write(JoinRequest.seal(me, key: requestKey), "\(JoinRequest.directory)/\(code.fileName)")
            var report = try syncHoldingLock()
            report.notes.append(
                "this vault (\(me.name), fingerprint \(me.fingerprint)) asked to join: the inviter's next sync admits it, "
                    + "this vault's next sync then brings the items")
            return report
        }
    }

    /// `sync invite`: a one-time code, valid for `lifetime` (at most ``InvitationFile/maxLifetime``). The
    /// repository holds the sync key and the log pin sealed to the code; this vault keeps the key the
    /// joiner's request must be MACed with.
    package func invite(lifetime: TimeInterval = 3600) throws(KeychainError) -> InvitationCode {
        guard lifetime > 0, lifetime <= InvitationFile.maxLifetime else {
            throw KeychainError(
                SecStatus.param,
                "an invitation lives between 1 second and \(Int(InvitationFile.maxLifetime / 86400)) days")
        }
        return try SyncLock.holding(vault) { () throws(KeychainError) -> InvitationCode in
            try inviteHoldingLock(lifetime: lifetime)
        }
    }

    private func inviteHoldingLock(lifetime: TimeInterval) throws(KeychainError) -> InvitationCode {
        try requireClone()
        _ = try syncHoldingLock()
        let code = InvitationCode.random()
        let expiry = Date().addingTimeInterval(lifetime)
        let file = try access.with { keychain throws(KeychainError) -> Data in
            try keychain.withCircleKeys { circle throws(KeychainError) -> Data in
                try keychain.withSyncKey { key throws(KeychainError) -> Data in
                    let requestKey = code.requestKey()
                    defer { requestKey.wipe() }
                    try keychain.rememberInvitation(code.fileName, requestKey: requestKey, expiry: expiry)
                    return InvitationFile.seal(
                        syncKey: key, logCount: circle.membership.entries.count, logHead: circle.membership.head,
                        code: code,
                        expiry: expiry, memberKey: circle.keys.memberKey)
                }
            }
        }
        try write(file, "\(InvitationFile.directory)/\(code.fileName)")
        _ = try syncHoldingLock()
        return code
    }

    /// `sync status`: whether the vault syncs, where to, and what is not yet exported.
    package func status() throws(KeychainError) -> KeychainDictionary {
        var d: KeychainDictionary = ["configured": .bool(FileManager.default.fileExists(atPath: clone + "/.git"))]
        guard d["configured"] == .bool(true) else { return d }
        d["remote"] = .string(
            (try? git.run(["remote", "get-url", "origin"]))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
        d["items"] = .number(Int64(SyncState.load(statePath).entries.count))
        d["lastCommit"] = .string(
            (try? git.run(["log", "-1", "--format=%cI"]))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
        if let circle = try? access.with({ keychain throws(KeychainError) in try keychain.syncMembership() }) {
            if let me = circle.me { d["member"] = .string(me.name); d["fingerprint"] = .string(me.fingerprint) }
            if let membership = circle.membership {
                d["epoch"] = .number(Int64(membership.epoch)); d["members"] = .number(Int64(membership.current.count))
            }
        }
        return d
    }

    /// `sync`: export local changes, fetch and verify (the membership log, the history), merge (the driver
    /// settles conflicts), apply incoming changes, export again what the merge removed, remove expired
    /// invitations, push; a rejected push is
    /// fetched, merged and retried. Then admit joiners whose requests hold, and start a new epoch if a
    /// member left. Syncs of one vault run one after the other (``SyncLock``).
    package func sync() throws(KeychainError) -> SyncReport {
        try SyncLock.holding(vault) { () throws(KeychainError) -> SyncReport in
            var report = try syncHoldingLock()
            guard report.admitted else { return report }
            try admitJoiners(&report)
            try rotateAfterLeave(&report)
            return report
        }
    }

    /// One sync round, with the sync lock held.
    func syncHoldingLock() throws(KeychainError) -> SyncReport {
        try requireClone()
        try registerDriver()
        var report = SyncReport()
        var state = SyncState.load(statePath)
        let exporter = SyncExporter(clone: clone, access: access, versionsPath: versionsPath)
        var rewound = try fetchAndVerify(&report)
        report.admitted = try access.with { keychain throws(KeychainError) in try keychain.isAdmittedToCircle() }
        if report.admitted {
            report.exported = try exporter.export(&state)
            report.expiredInvitations = try exporter.removeExpiredInvitations()
            try state.save(statePath)
        } else {
            report.notes.append(
                "this vault waits for admission: a member's sync admits it (its request is in the repository)")
        }
        try commit()
        for attempt in 1...Self.pushAttempts {
            if attempt > 1 { rewound = try fetchAndVerify(&report) }
            if !rewound { try merge() }
            if report.admitted {
                try exporter.importChanges(&state, into: &report)
                // Files the merge removed (a host that deletes item files) go back before this push, not one
                // round later: the vault still holds their records.
                report.exported += try exporter.export(&state)
            }
            try state.save(statePath)
            try commit()
            if try git.call(["rev-parse", "--verify", "-q", "HEAD"]).status != 0 { return report }
            let pushed = try git.call(["push", "-q", "origin", "HEAD:\(Self.branch)"])
            if pushed.status == 0 {
                report.pushed = true
                try noteOwnPush()
                return report
            }
            if attempt == Self.pushAttempts {
                throw KeychainError(
                    SecStatus.io,
                    "git push was rejected \(Self.pushAttempts) times: \(pushed.stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
                )
            }
        }
        return report
    }

    // MARK: git steps

    package static let headerName = "FORMAT"

    private func cloneRemote(_ remote: String) throws(KeychainError) {
        try? FileManager.default.createDirectory(
            atPath: vault.directory + "/sync", withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        // No checkout by clone: it would check out whatever the remote's HEAD names (git's default branch
        // on a plain `git init --bare`, perhaps none), and before the attributes below are in place.
        try GitRunner(directory: vault.directory + "/sync").run(["clone", "-q", "--no-checkout", "--", remote, "repo"])
        try git.run(["symbolic-ref", "HEAD", "refs/heads/\(Self.branch)"])
        try registerDriver()
        if try git.call(["rev-parse", "--verify", "-q", "origin/\(Self.branch)"]).status == 0 {
            try git.run(["reset", "-q", "--hard", try untrusted.regularFilesOnly("origin/\(Self.branch)")])
        }
    }

    /// What git does with the files, set in the clone's `.git/info/attributes`, which takes precedence over
    /// any `.gitattributes` the repository holds (a host could push `items/* merge=union`): item files merge
    /// with the driver, nothing is converted on checkout, anything else that conflicts stays a conflict.
    package static let attributes = """
        * -text -filter -ident -working-tree-encoding -merge
        \(SyncFile.directory)/* merge=keychainfs

        """

    private func registerDriver() throws(KeychainError) {
        try git.run(["config", "merge.keychainfs.name", "keychainfs: newer mdat wins"])
        try git.run(["config", "merge.keychainfs.driver", driverCommand])
        // Belt and braces beside UntrustedTree: a link git would check out becomes a plain file.
        try git.run(["config", "core.symlinks", untrusted.filters ? "false" : "true"])
        let info = clone + "/.git/info"
        if mkdir(info, 0o700) != 0 && errno != EEXIST {
            throw KeychainError(SecStatus.io, "cannot create \(info): \(String(cString: strerror(errno)))")
        }
        try FileIO.writeAtomically(Data(Self.attributes.utf8), to: info + "/attributes", mode: 0o600)
    }

    /// Merges the remote's branch (fetched and verified by ``fetchAndVerify(_:)``), links and submodules left out.
    private func merge() throws(KeychainError) {
        guard try originCommit() != nil else { return }
        let incoming = try untrusted.regularFilesOnly("origin/\(Self.branch)")
        if try git.call(["rev-parse", "--verify", "-q", "HEAD"]).status != 0 {
            try git.run(["reset", "-q", "--keep", incoming])
            return
        }
        let merged = try git.call(["merge", "-q", "--no-edit", "-m", "keychainfs sync", incoming])
        guard merged.status == 0 else {
            _ = try? git.call(["merge", "--abort"])
            throw KeychainError(
                SecStatus.decode,
                "the merge with the remote could not be settled (a file the merge driver cannot read?); nothing changed in the vault"
            )
        }
    }

    func commit() throws(KeychainError) {
        try git.run(["add", "-A", "."])
        if try git.call(["diff", "--cached", "--quiet"]).status == 0 { return }
        try git.run(["commit", "-q", "-m", "keychainfs sync"])
    }

    func write(_ data: Data, _ relative: String) throws(KeychainError) {
        let path = clone + "/" + relative
        try? FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileIO.writeAtomically(data, to: path, mode: 0o600)
    }

    private func requireNoSyncSetup() throws(KeychainError) {
        if FileManager.default.fileExists(atPath: clone) {
            throw KeychainError(SecStatus.duplicateItem, "this vault already syncs (\(clone) exists)")
        }
    }

    /// Runs the steps of an init or join (no clone exists: a key found is one left without a clone, set
    /// aside meanwhile); if one fails, removes what they made (the clone, the state, the key, the identity,
    /// the trust memory), puts the key set aside back and rethrows.
    private func undoingOnFailure<T>(_ steps: () throws(KeychainError) -> T) throws(KeychainError) -> T {
        let setAside = try access.with { keychain throws(KeychainError) -> Bool in try keychain.setAsideSyncKey() }
        do {
            let result = try steps()
            if setAside { try? access.with { keychain throws(KeychainError) in keychain.endSetAside(keep: false) } }
            return result
        } catch {
            try? removeClone()
            unlink(statePath)
            unlink(versionsPath)
            try? access.with { keychain throws(KeychainError) in
                keychain.removeSyncSecrets()
                try keychain.removeSyncKey()
                if setAside { keychain.endSetAside(keep: true) }
            }
            throw error
        }
    }

    func requireClone() throws(KeychainError) {
        guard FileManager.default.fileExists(atPath: clone + "/.git") else {
            throw KeychainError(
                SecStatus.itemNotFound,
                "this vault does not sync yet: run 'keychainfs sync init REMOTE' or 'sync join REMOTE --code-stdin'")
        }
    }

    func removeClone() throws { try FileManager.default.removeItem(atPath: clone) }

    package static func quoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
