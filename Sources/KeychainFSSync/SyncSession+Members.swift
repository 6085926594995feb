import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation

/// The circle's commands: who is in, remove, rotate, leave, and the admissions and new epochs a sync makes.
/// A change is signed by this vault and pushed at once, or not made at all: it is made on top of a sync
/// round that left the clone equal to the remote, and a rejected push resets the clone and the trust
/// memory and tries again.
extension SyncSession {
    /// `sync members`: every member in the log this vault last verified (current and removed).
    package func members() throws(KeychainError) -> [KeychainValue] {
        let circle = try access.with { keychain throws(KeychainError) in try keychain.syncMembership() }
        guard let membership = circle.membership else {
            throw KeychainError(
                SecStatus.itemNotFound, "this vault is in no circle: run 'keychainfs sync init' or 'sync join'")
        }
        return membership.members.map { member in
            var d: KeychainDictionary = [
                "name": .string(member.keys.name), "fingerprint": .string(member.keys.fingerprint),
                "addedBy": .string(member.addedBy), "addedAt": .date(member.addedAt),
                "current": .bool(member.isCurrent), "self": .bool(member.keys == circle.me),
            ]
            if let by = member.removedBy, let at = member.removedAt {
                d["removedBy"] = .string(by); d["removedAt"] = .date(at)
            }
            return .dictionary(d)
        }
    }

    /// `sync remove MEMBER` (a name or fingerprint): a new epoch whose key the removed vault is not given;
    /// every item file re-sealed under it. The last member cannot be removed; a vault leaves, not removes itself.
    package func remove(_ member: String) throws(KeychainError) -> SyncReport {
        try SyncLock.holding(vault) { () throws(KeychainError) -> SyncReport in
            try changeMembership(.remove) { membership, me throws(KeychainError) -> MemberKeys? in
                let matches = membership.current(named: member)
                guard let target = matches.first else {
                    throw KeychainError(
                        SecStatus.itemNotFound,
                        "no current member is named \(member.prefix(64)) (see 'keychainfs sync members')")
                }
                guard matches.count == 1 else {
                    throw KeychainError(
                        SecStatus.param, "several members are named \(member.prefix(64)): give the fingerprint")
                }
                guard target.keys != me else {
                    throw KeychainError(SecStatus.param, "a vault does not remove itself: use 'keychainfs sync leave'")
                }
                return target.keys
            }
        }
    }

    /// `sync rotate`: a new epoch without removing anyone.
    package func rotate() throws(KeychainError) -> SyncReport {
        try SyncLock.holding(vault) { () throws(KeychainError) -> SyncReport in
            try changeMembership(.rotate) { _, _ in nil }
        }
    }

    /// `sync leave`: this vault signs its leave (the next member to sync starts a new epoch without it),
    /// then drops its sync setup: the clone, the keys, the identity, the memories. Its items stay. A vault
    /// that is in no circle of this format (waiting, removed, format 1) just drops its setup.
    package func leave() throws(KeychainError) -> SyncReport {
        try SyncLock.holding(vault) { () throws(KeychainError) -> SyncReport in
            var report = SyncReport()
            if FileManager.default.fileExists(atPath: clone + "/.git"),
                (try? requireCurrentFormat(origin: false)) != nil,
                (try? requireCurrentFormat(origin: true)) != nil,
                (try? access.with({ keychain throws(KeychainError) in try keychain.isAdmittedToCircle() })) == true
            {
                do throws(KeychainError) { report = try changeMembership(.leave) { _, me in me } } catch
                    where error.status == SecStatus.authFailed
                {
                    // Removed meanwhile (its sync says so): there is nothing left to sign out of.
                    report.notes.append("this vault was no longer a member of its circle")
                }
            }
            try? removeClone()
            unlink(statePath)
            unlink(versionsPath)
            try access.with { keychain throws(KeychainError) in
                keychain.removeSyncSecrets()
                try keychain.removeSyncKey()
            }
            report.notes.append("this vault left its circle: it syncs no more; its items stay")
            return report
        }
    }

    /// Admits every joiner whose request holds a MAC under an invitation this vault issued.
    func admitJoiners(_ report: inout SyncReport) throws(KeychainError) {
        let directory = clone + "/" + JoinRequest.directory
        var requests: [String: Data] = [:]
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).prefix(256) {
            if let bytes = try? RepositoryFile.read(directory + "/" + name, limit: JoinRequest.maxBytes) {
                requests[name] = bytes
            }
        }
        guard !requests.isEmpty else { return }
        let joiners = try access.with { keychain throws(KeychainError) in
            try keychain.verifiedJoinRequests(requests, refused: &report.skipped)
        }
        for joiner in joiners {
            let round = try changeMembership(
                .add,
                cleanUp: [JoinRequest.directory + "/" + joiner.name, InvitationFile.directory + "/" + joiner.name]
            ) { _, _ in
                joiner.member
            }
            try access.with { keychain throws(KeychainError) in try keychain.forgetInvitation(joiner.name) }
            report.notes.append(contentsOf: round.notes)
            report.notes.append("admitted \(joiner.member.name) (fingerprint \(joiner.member.fingerprint))")
        }
    }

    /// A member left since the keyring was made: start a new epoch without it.
    func rotateAfterLeave(_ report: inout SyncReport) throws(KeychainError) {
        let circle = try access.with { keychain throws(KeychainError) in try keychain.syncMembership() }
        guard circle.membership?.needsNewEpoch == true else { return }
        let round = try changeMembership(.rotate) { _, _ in nil }
        report.notes.append(contentsOf: round.notes)
    }

    /// Makes one signed change (the subject chosen by `subject` from the membership after a sync round),
    /// writes the log and keyring, re-seals every item file in a new epoch, removes `cleanUp`, commits and
    /// pushes; a rejected push puts the clone and trust memory back and tries again.
    private func changeMembership(
        _ operation: MemberLogEntry.Operation, cleanUp: [String] = [],
        subject: (Membership, MemberKeys) throws(KeychainError) -> MemberKeys?
    ) throws(KeychainError) -> SyncReport {
        for _ in 1...Self.pushAttempts {
            var report = try syncHoldingLock()
            guard report.admitted else {
                throw KeychainError(SecStatus.authFailed, "this vault is not an admitted member of its circle")
            }
            let before = try git.run(["rev-parse", "HEAD"]).trimmingCharacters(in: .whitespacesAndNewlines)
            let circle = try access.with { keychain throws(KeychainError) in try keychain.syncMembership() }
            guard let membership = circle.membership, let me = circle.me else {
                throw KeychainError(SecStatus.itemNotFound, "this vault is in no circle")
            }
            let target = try subject(membership, me)
            let change = try access.with { keychain throws(KeychainError) in
                try keychain.appendMemberEntry(operation, subject: target)
            }
            do {
                try write(change.log, MemberLog.path)
                if let keyring = change.keyring { try write(keyring, EpochKeyring.path) }
                for path in cleanUp { unlink(clone + "/" + path) }
                if operation == .remove || operation == .rotate {
                    var state = SyncState.load(statePath)
                    let resealed = try SyncExporter(clone: clone, access: access, versionsPath: versionsPath).resealAll(
                        &state)
                    try state.save(statePath)
                    report.exported += resealed
                    report.notes.append("a new epoch: \(resealed) item files re-sealed under its key")
                }
                try commit()
                if try git.call(["push", "-q", "origin", "HEAD:\(Self.branch)"]).status == 0 {
                    try noteOwnPush()
                    report.pushed = true
                    return report
                }
            } catch {
                try? undo(before, change)
                throw error
            }
            try undo(before, change)
        }
        throw KeychainError(
            SecStatus.io, "git push was rejected \(Self.pushAttempts) times; the circle was not changed")
    }

    private func undo(_ commit: String, _ change: Keychain.MemberChange) throws(KeychainError) {
        try git.run(["reset", "-q", "--hard", commit])
        try access.with { keychain throws(KeychainError) in try keychain.restoreTrust(change.previous) }
    }
}
