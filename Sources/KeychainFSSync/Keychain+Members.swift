import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium

/// The engine's part of membership: founding a circle, appending signed entries to the trusted log (with a
/// new epoch key sealed to the members after the entry), learning what a verified incoming log says.
extension Keychain {
    /// A change this vault signed, not yet pushed: the files to write and the trust memory before it (put
    /// back if the push fails).
    struct MemberChange {
        let log: Data
        let keyring: Data?
        let previous: SyncTrust
    }

    /// The genesis entry: this vault founds a circle alone in epoch 1. Returns the log and keyring files.
    func foundSyncCircle() throws(KeychainError) -> (log: Data, keyring: Data) {
        try withSyncIdentity { identity throws(KeychainError) -> (log: Data, keyring: Data) in
            let key = GuardedKey.random()
            defer { key.wipe() }
            let keyring = EpochKeyring.seal(key, epoch: 1, to: [identity.keys])
            var entry = MemberLogEntry(
                sequence: 0, previous: Data(), operation: .found, subject: identity.keys, epoch: 1,
                keyring: EpochKeyring.digest(keyring), signer: identity.keys.signingKey, date: Date())
            entry.signature = identity.sign(entry.signedBytes)
            var trust = SyncTrust(log: MemberLog.encode([entry]))
            trust.epochKeys[1] = key.withBytes { Data($0) }
            defer { trust.wipe() }
            try saveSyncTrust(trust)
            return (trust.log, keyring)
        }
    }

    /// Appends `operation` on `subject`, signed by this vault, to the trusted log and saves it; remove and
    /// rotate start a new epoch (a new key, sealed to the members after the entry), add seals the current
    /// key to the members and the joiner, leave changes no key. Refused when the log would not verify
    /// (removing the last member, a non-member, or this vault is not a member).
    func appendMemberEntry(_ operation: MemberLogEntry.Operation, subject: MemberKeys?) throws(KeychainError)
        -> MemberChange
    {
        var trust = try loadSyncTrust()
        let previous = trust
        defer { trust.wipe() }
        guard let membership = try trust.membership() else {
            throw KeychainError(SecStatus.itemNotFound, "this vault is in no circle")
        }
        return try withSyncIdentity { identity throws(KeychainError) -> MemberChange in
            guard membership.member(signingKey: identity.keys.signingKey)?.isCurrent == true else {
                throw KeychainError(SecStatus.authFailed, "this vault is not a member of its circle")
            }
            let newEpoch = operation == .remove || operation == .rotate
            let epoch = newEpoch ? membership.epoch + 1 : membership.epoch
            var keyring: Data?
            if operation != .leave {
                let key: GuardedKey
                if newEpoch {
                    key = .random()
                } else {
                    guard let raw = trust.epochKeys[epoch], let copy = try? GuardedKey.copying(raw) else {
                        throw KeychainError(
                            SecStatus.interactionNotAllowed, "this vault holds no key of epoch \(epoch)")
                    }
                    key = copy
                }
                defer { key.wipe() }
                var recipients = membership.current.map(\.keys).filter { $0 != subject || operation != .remove }
                if operation == .add, let subject { recipients.append(subject) }
                keyring = EpochKeyring.seal(key, epoch: epoch, to: recipients)
                trust.epochKeys[epoch] = key.withBytes { Data($0) }
            }
            var entry = MemberLogEntry(
                sequence: membership.entries.count, previous: membership.head, operation: operation, subject: subject,
                epoch: epoch, keyring: keyring.map(EpochKeyring.digest) ?? Data(), signer: identity.keys.signingKey,
                date: Date())
            entry.signature = identity.sign(entry.signedBytes)
            let log = MemberLog.encode(membership.entries + [entry])
            do { _ = try MemberLog.verify(log) } catch {
                throw KeychainError(
                    SecStatus.param,
                    operation == .remove || operation == .leave
                        ? "refused: the last member of a circle cannot be removed, and only a member can be"
                        : "refused: \(error)")
            }
            trust.log = log
            try saveSyncTrust(trust)
            return MemberChange(log: log, keyring: keyring, previous: previous)
        }
    }

    /// What this vault makes of the remote's verified log and keyring: refused if the log does not extend
    /// the one trusted (rolled back or rewritten) or this vault was removed; otherwise trusted, with the
    /// epoch key sealed to this vault learnt. `remote` is the commit they came from.
    func trustIncoming(log: Data, keyring: Data?, remote: String) throws(KeychainError) -> Membership {
        let incoming: Membership
        do { incoming = try MemberLog.verify(log) } catch {
            throw KeychainError(
                SecStatus.decode,
                "the repository's membership log is refused (\(error)); nothing of the remote was applied")
        }
        var trust = try loadSyncTrust()
        defer { trust.wipe() }
        if let trusted = try trust.membership(), !incoming.extends(trusted) {
            throw KeychainError(
                SecStatus.decode,
                "the repository's membership log does not extend the one this vault verified (rolled back or "
                    + "rewritten by the host?): nothing of the remote was applied")
        }
        return try withSyncIdentity { identity throws(KeychainError) -> Membership in
            if let me = incoming.member(signingKey: identity.keys.signingKey), !me.isCurrent {
                throw KeychainError(
                    SecStatus.authFailed,
                    "this vault was removed from its circle by \(me.removedBy ?? "?"): it syncs no more "
                        + "('keychainfs sync leave' clears its sync setup; its items stay)")
            }
            // The keyring in force is authoritative for its epoch (a key this vault kept from a change whose
            // push failed never outlives it).
            if let keyring {
                do {
                    if let key = try EpochKeyring.open(keyring, membership: incoming, identity: identity) {
                        trust.epochKeys[incoming.epoch] = key.withBytes { Data($0) }
                        key.wipe()
                    }
                } catch { throw KeychainError(SecStatus.decode, "\(error); nothing of the remote was applied") }
            }
            trust.log = log
            trust.remote = remote
            try saveSyncTrust(trust)
            return incoming
        }
    }

    /// Whether this vault is a current member holding the current epoch's key.
    func isAdmittedToCircle() throws(KeychainError) -> Bool {
        var trust = try loadSyncTrust()
        defer { trust.wipe() }
        guard let membership = try trust.membership(), trust.epochKeys[membership.epoch] != nil else { return false }
        return try withSyncIdentity { identity throws(KeychainError) -> Bool in
            membership.member(signingKey: identity.keys.signingKey)?.isCurrent == true
        }
    }

    /// The circle as this vault last verified it, and this vault's own keys (nil before it has an identity).
    package func syncMembership() throws(KeychainError) -> (membership: Membership?, me: MemberKeys?) {
        var trust = try loadSyncTrust()
        defer { trust.wipe() }
        let me = try? withSyncIdentity { identity throws(KeychainError) -> MemberKeys in identity.keys }
        return (try trust.membership(), me)
    }

    /// Remembers the last remote commit this vault's own push left (it descends from every one seen).
    func noteRemote(_ commit: String) throws(KeychainError) {
        var trust = try loadSyncTrust()
        defer { trust.wipe() }
        trust.remote = commit
        try saveSyncTrust(trust)
    }

    /// Puts back the trust memory a change replaced (its push failed).
    func restoreTrust(_ trust: SyncTrust) throws(KeychainError) { try saveSyncTrust(trust) }

    /// Remembers an invitation this vault issued; forgets the expired ones.
    func rememberInvitation(_ name: String, requestKey: GuardedKey, expiry: Date) throws(KeychainError) {
        var trust = try loadSyncTrust()
        defer { trust.wipe() }
        trust.invites = trust.invites.filter { $0.value.expiry > Date() }
        trust.invites[name] = SyncTrust.Invite(requestKey: requestKey.withBytes { Data($0) }, expiry: expiry)
        try saveSyncTrust(trust)
    }

    /// The joiners whose requests (by invitation name) hold a MAC under an unexpired invitation this vault
    /// issued; `refused` collects the requests that do not.
    func verifiedJoinRequests(_ requests: [String: Data], refused: inout [String]) throws(KeychainError) -> [(
        name: String, member: MemberKeys
    )] {
        var trust = try loadSyncTrust()
        defer { trust.wipe() }
        var admitted: [(name: String, member: MemberKeys)] = []
        for (name, bytes) in requests.sorted(by: { $0.key < $1.key }) {
            guard let invite = trust.invites[name], invite.expiry > Date(),
                let key = try? GuardedKey.copying(invite.requestKey)
            else { continue }
            defer { key.wipe() }
            do { admitted.append((name, try JoinRequest.open(bytes, key: key))) } catch {
                refused.append("\(JoinRequest.directory)/\(name): \(error)")
            }
        }
        return admitted
    }

    /// Forgets the invitation `name` (used).
    func forgetInvitation(_ name: String) throws(KeychainError) {
        var trust = try loadSyncTrust()
        defer { trust.wipe() }
        trust.invites[name] = nil
        try saveSyncTrust(trust)
    }

    /// Removes this vault's sync setup files (key, identity, trust): for leave and a failed init or join.
    func removeSyncSecrets() {
        removeSyncSecret(SyncIdentity.file)
        removeSyncSecret(SyncTrust.file)
    }
}
