import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium

/// Who is in a circle, as a verified membership log says: every member ever, the epoch in force and the
/// keyring that carries its key.
package struct Membership: Sendable {
    /// A member, current or removed.
    package struct Member: Sendable {
        /// Its public keys and name.
        package let keys: MemberKeys
        /// The name of the member that added it (itself for the founder).
        package let addedBy: String
        /// When (the adder's clock).
        package let addedAt: Date
        /// The epoch it was added in: it signs nothing older.
        package let addedEpoch: Int
        /// Who removed it (itself when it left), nil while it is a member.
        package internal(set) var removedBy: String?
        /// When.
        package internal(set) var removedAt: Date?
        /// Whether it is a member now.
        package var isCurrent: Bool { removedBy == nil }
    }

    /// Every member ever, in the order they were added.
    package private(set) var members: [Member] = []
    /// The epoch in force.
    package private(set) var epoch: Int
    /// SHA-256 of the keyring file in force.
    package private(set) var keyringDigest: Data
    /// The entries verified.
    package private(set) var entries: [MemberLogEntry]
    /// Whether a member left after the keyring was made: the next member to sync starts a new epoch.
    package private(set) var needsNewEpoch = false

    /// The current members.
    package var current: [Member] { members.filter(\.isCurrent) }
    /// The last entry's hash: what the next entry chains to.
    package var head: Data { entries.last!.hash }

    /// The member whose signing key is `key`, current or not.
    package func member(signingKey key: Data) -> Member? { members.first { $0.keys.signingKey == key } }

    /// The current members `text` names (a name may be shared; a fingerprint is not).
    package func current(named text: String) -> [Member] { current.filter { $0.keys.matches(text) } }

    /// Whether a record of `epoch` signed by `signer` may be applied: the signer is a member now, and was
    /// one in that epoch, which is not in the future.
    package func accepts(signer: Data, epoch recordEpoch: Int) -> Bool {
        guard let member = member(signingKey: signer), member.isCurrent else { return false }
        return recordEpoch >= member.addedEpoch && recordEpoch <= epoch
    }

    init(genesis: MemberLogEntry, signatures: Bool) throws(SyncFormatError) {
        guard genesis.sequence == 0, genesis.previous.isEmpty, genesis.operation == .found, genesis.epoch == 1,
            let founder = genesis.subject, founder.signingKey == genesis.signer, genesis.keyring.count == 32
        else {
            throw SyncFormatError("the membership log does not start with a founder's genesis entry")
        }
        guard !signatures || Ed25519.verify(genesis.signature, of: genesis.signedBytes, publicKey: genesis.signer)
        else {
            throw SyncFormatError("the membership log's genesis entry has a bad signature")
        }
        members = [Member(keys: founder, addedBy: founder.name, addedAt: genesis.date, addedEpoch: 1)]
        epoch = 1
        keyringDigest = genesis.keyring
        entries = [genesis]
    }

    /// Checks `entry` against the log so far and applies it.
    mutating func apply(_ entry: MemberLogEntry, signatures: Bool) throws(SyncFormatError) {
        let at = "membership log entry \(entry.sequence)"
        guard entry.sequence == entries.count, entry.previous == head else {
            throw SyncFormatError("\(at) does not follow the one before it")
        }
        guard let signer = member(signingKey: entry.signer), signer.isCurrent else {
            throw SyncFormatError("\(at) is signed by a non-member")
        }
        guard !signatures || Ed25519.verify(entry.signature, of: entry.signedBytes, publicKey: entry.signer) else {
            throw SyncFormatError("\(at) has a bad signature")
        }
        let newKeyring = entry.keyring.count == 32
        switch entry.operation {
        case .found:
            throw SyncFormatError("\(at) founds the circle again")
        case .add:
            guard let subject = entry.subject, member(signingKey: subject.signingKey) == nil,
                !current.contains(where: { $0.keys.agreementKey == subject.agreementKey }),
                entry.epoch == epoch, newKeyring
            else { throw SyncFormatError("\(at) adds a member it may not add") }
            members.append(Member(keys: subject, addedBy: signer.keys.name, addedAt: entry.date, addedEpoch: epoch))
        case .remove, .leave:
            guard let subject = entry.subject,
                let index = members.firstIndex(where: { $0.keys == subject && $0.isCurrent }), current.count > 1,
                (entry.operation == .leave) == (subject.signingKey == entry.signer),
                entry.operation == .leave
                    ? entry.epoch == epoch && entry.keyring.isEmpty : entry.epoch == epoch + 1 && newKeyring
            else {
                throw SyncFormatError("\(at) removes a member it may not remove (the last one, or not a member)")
            }
            members[index].removedBy = signer.keys.name
            members[index].removedAt = entry.date
        case .rotate:
            guard entry.subject == nil, entry.epoch == epoch + 1, newKeyring else {
                throw SyncFormatError("\(at) is not a valid rotation")
            }
        }
        if newKeyring { keyringDigest = entry.keyring; needsNewEpoch = false } else { needsNewEpoch = true }
        epoch = entry.epoch
        entries.append(entry)
    }

    /// Whether `self` (verified later) extends `earlier`: the same entries, then more.
    package func extends(_ earlier: Membership) -> Bool {
        entries.count >= earlier.entries.count && entries[earlier.entries.count - 1].hash == earlier.head
    }
}
