import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation

/// What a sync checks of the remote before it merges anything: the format, that its branch descends from
/// the commit this vault last saw (a host that rewinds, forks or reorders the history is caught), and that
/// its membership log verifies and extends the one this vault trusts.
extension SyncSession {
    /// The header of the current sync format.
    static let header = "keychainfs-sync 2\n"

    /// The remote branch's commit, nil when it has none yet.
    func originCommit() throws(KeychainError) -> String? {
        let out = try git.call(["rev-parse", "--verify", "-q", "origin/\(Self.branch)^{commit}"])
        return out.status == 0 ? out.stdout.trimmingCharacters(in: .whitespacesAndNewlines) : nil
    }

    /// A regular file of the remote's branch, at most `limit` bytes; nil when absent.
    func originFile(_ path: String, limit: Int) throws(KeychainError) -> Data? {
        let entry = try git.call(["ls-tree", "-z", "origin/\(Self.branch)", "--", path])
        guard entry.status == 0, entry.stdout.hasPrefix("100644 blob ") || entry.stdout.hasPrefix("100755 blob ") else {
            return nil
        }
        let object = String(entry.stdout.dropFirst(12).prefix { $0 != "\t" })
        let size = try git.run(["cat-file", "-s", object]).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Int(size), bytes <= limit else {
            throw KeychainError(
                SecStatus.decode,
                "the repository's \(path) is larger than \(limit) bytes; nothing of the remote was applied")
        }
        let out = try git.call(["cat-file", "blob", object])
        guard out.status == 0 else { throw KeychainError(SecStatus.io, "git cat-file failed on \(path)") }
        return out.stdoutData
    }

    /// Refuses a repository of another format: format 1 (before members) says how to move on.
    func requireCurrentFormat(origin: Bool) throws(KeychainError) {
        let header =
            origin
            ? try originFile(Self.headerName, limit: 64)
            : FileManager.default.contents(atPath: clone + "/" + Self.headerName)
        guard let header else { return }
        let text = String(decoding: header, as: UTF8.self)
        if text == Self.header { return }
        if text == "keychainfs-sync 1\n" {
            throw KeychainError(
                SecStatus.unimplemented,
                "this repository has sync format 1 (one shared key, no members), which this release "
                    + "no longer trusts: run 'keychainfs sync leave' in each vault (items stay), then 'sync init NEW-REMOTE' in one "
                    + "and 'sync invite' / 'sync join' for the others (docs/sync.md, upgrading)")
        }
        throw KeychainError(
            SecStatus.unimplemented, "this repository has an unknown sync format (a newer release?): \(text.prefix(40))"
        )
    }

    /// Fetches and checks the remote; returns true when its branch moved back to a commit this vault's
    /// history already holds (rewound, newest commits dropped): then nothing of it is merged, it is
    /// reported, and this sync's push restores the newer history. A branch that forked from a commit this
    /// vault saw (rewound, then another member pushed on top) is merged like any other, every record
    /// checked as always (signatures, the version memory, a log that extends the trusted one), so the vault
    /// pushes its newer records back on the host's history and the circle converges (docs/sync.md,
    /// "Rollback"). A history that shares no commit with this vault's, or a log that does not extend the
    /// trusted one, is refused with an error: nothing applied.
    func fetchAndVerify(_ report: inout SyncReport) throws(KeychainError) -> Bool {
        try git.run(["fetch", "-q", "origin"])
        guard let origin = try originCommit() else { return false }
        let seen = try access.with { keychain throws(KeychainError) -> String in try keychain.loadSyncTrust().remote }
        let descends = seen.isEmpty || seen == origin ? true : try isAncestor(seen, of: origin)
        if !descends {
            if try isAncestor(origin, of: seen) {
                report.notes.append(
                    "the remote's branch moved back to an older commit (rewound, or its newest commits dropped): "
                        + "nothing of it was applied; this sync pushes the newer history back")
                report.rolledBack = true
                return true
            }
            guard let base = try mergeBase(seen, origin) else {
                throw KeychainError(
                    SecStatus.decode,
                    "the remote's history was rewritten (\(origin.prefix(12)) shares no commit with "
                        + "\(seen.prefix(12)), the last commit this vault saw): nothing of it was applied")
            }
            report.notes.append(
                "the remote's branch forked from \(base.prefix(12)), a commit this vault saw (rewound, then pushed to): "
                    + "its records are checked and merged, and this sync pushes the newer history back")
            report.rolledBack = true
        }
        try requireCurrentFormat(origin: true)
        guard let log = try originFile(MemberLog.path, limit: MemberLog.maxBytes) else {
            throw KeychainError(
                SecStatus.decode, "the repository has no membership log (\(MemberLog.path)): nothing of it was applied")
        }
        let keyring = try originFile(EpochKeyring.path, limit: EpochKeyring.maxBytes)
        _ = try access.with { keychain throws(KeychainError) -> Membership in
            try keychain.trustIncoming(log: log, keyring: keyring, remote: origin)
        }
        return false
    }

    /// After a push: the remote now holds this vault's HEAD, which descends from every commit it saw.
    func noteOwnPush() throws(KeychainError) {
        let head = try git.run(["rev-parse", "HEAD"]).trimmingCharacters(in: .whitespacesAndNewlines)
        try access.with { keychain throws(KeychainError) in try keychain.noteRemote(head) }
    }

    /// The newest commit both histories hold, or nil when they share none.
    private func mergeBase(_ a: String, _ b: String) throws(KeychainError) -> String? {
        let found = try git.call(["merge-base", a, b])
        let base = found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return found.status == 0 && !base.isEmpty ? base : nil
    }

    private func isAncestor(_ a: String, of b: String) throws(KeychainError) -> Bool {
        try git.call(["merge-base", "--is-ancestor", a, b]).status == 0
    }
}
