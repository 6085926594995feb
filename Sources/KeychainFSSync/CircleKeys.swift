import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium

/// Everything a member seals, signs and verifies item files with: the names' keys (from the sync key),
/// its identity, the verified membership and the item key of each epoch it holds. Wiped after use.
package final class CircleKeys: @unchecked Sendable {
    /// Keys derived from the sync key (file names, invitation expiry, the version memory).
    package let keys: SyncKeys
    let identity: SyncIdentity
    /// Who is in, as last verified.
    package let membership: Membership
    private let itemKeys: [Int: GuardedKey]
    /// Off only by ``SyncTestSwitch/signatures``: who signed, whether the signature holds, and whether
    /// the record belongs to its file name go unchecked.
    let verifies: Bool

    init(keys: SyncKeys, identity: SyncIdentity, membership: Membership, epochKeys: [Int: Data], verifies: Bool)
        throws(KeychainError)
    {
        var itemKeys: [Int: GuardedKey] = [:]
        for (epoch, raw) in epochKeys {
            guard let key = try? GuardedKey.copying(raw) else { continue }
            itemKeys[epoch] = Self.itemKey(key)
            key.wipe()
        }
        guard itemKeys[membership.epoch] != nil else {
            for key in itemKeys.values { key.wipe() }
            throw KeychainError(
                SecStatus.interactionNotAllowed,
                "this vault holds no key of the circle's epoch \(membership.epoch): it waits for a member's sync to admit it"
            )
        }
        self.keys = keys
        self.identity = identity
        self.membership = membership
        self.itemKeys = itemKeys
        self.verifies = verifies
    }

    /// The item key of an epoch key.
    static func itemKey(_ epochKey: GuardedKey) -> GuardedKey {
        KeyDerivation.subkey(of: epochKey, context: "keychainfs.sync.epoch-item-key.v2")
    }

    /// The epoch this vault writes in.
    package var epoch: Int { membership.epoch }

    /// This vault's signing key.
    package var signingKey: Data { identity.keys.signingKey }

    /// The file name of `record`.
    package func fileName(for record: SyncRecord) -> String { keys.fileName(for: record) }

    /// `record` sealed in the current epoch and signed by this vault, as the file `name`.
    package func seal(_ record: SyncRecord, name: String) -> Data {
        SignedSyncFile.seal(record, name: name, epoch: epoch, itemKey: itemKeys[epoch]!, identity: identity)
    }

    /// The record in the file `name` and its epoch, or why it is refused: an epoch this vault holds no key
    /// of, a writer that is not a member (or no longer), a bad signature, a record of another item.
    /// `anyMember` accepts a writer removed since (a tombstone re-sealed in a new epoch: its content is
    /// this vault's own).
    package func open(_ bytes: Data, name: String, anyMember: Bool = false) throws(SyncFormatError) -> (
        record: SyncRecord, epoch: Int
    ) {
        let parts = try SignedSyncFile.parse(bytes)
        guard let itemKey = itemKeys[parts.epoch] else {
            throw SyncFormatError(
                "sealed in epoch \(parts.epoch), which this vault holds no key of (unknown epoch); refused")
        }
        if anyMember && verifies {
            guard membership.member(signingKey: parts.signer) != nil else {
                throw SyncFormatError("signed by a non-member; refused")
            }
        } else if verifies {
            guard membership.accepts(signer: parts.signer, epoch: parts.epoch) else {
                let member = membership.member(signingKey: parts.signer)
                throw SyncFormatError(
                    member == nil
                        ? "signed by a non-member; refused"
                        : member!.isCurrent
                            ? "signed by a member in an epoch before it joined; refused"
                            : "signed by \(member!.keys.name), removed from the circle; refused")
            }
            guard SignedSyncFile.signatureHolds(parts, name: name) else {
                throw SyncFormatError("its signature does not hold (bad signature); refused")
            }
        }
        let record = try SignedSyncFile.openBox(parts, name: name, itemKey: itemKey)
        if verifies, keys.fileName(for: record) != name {
            throw SyncFormatError("its record is for another item than its file name says (forged); refused")
        }
        return (record, parts.epoch)
    }

    /// Wipes every key.
    package func wipe() {
        keys.wipe()
        identity.wipe()
        for key in itemKeys.values { key.wipe() }
    }
}

extension Keychain {
    /// Calls `body` with the circle's keys as this vault holds them, wiped afterwards; errSecInteractionNotAllowed
    /// while this vault waits for admission.
    package func withCircleKeys<T>(_ body: (CircleKeys) throws(KeychainError) -> T) throws(KeychainError) -> T {
        try withSyncKey { syncKey throws(KeychainError) -> T in
            var trust = try loadSyncTrust()
            defer { trust.wipe() }
            guard let membership = try trust.membership() else {
                throw KeychainError(
                    SecStatus.interactionNotAllowed,
                    "this vault has not verified its circle's membership yet: run 'keychainfs sync'")
            }
            let identity = try loadSyncIdentity()
            let keys = SyncKeys(syncKey: syncKey)
            let circle: CircleKeys
            do throws(KeychainError) {
                circle = try CircleKeys(
                    keys: keys, identity: identity, membership: membership, epochKeys: trust.epochKeys,
                    verifies: !SyncTestSwitch.disables(SyncTestSwitch.signatures, vault))
            } catch {
                identity.wipe()
                keys.wipe()
                throw error
            }
            defer { circle.wipe() }
            return try body(circle)
        }
    }
}
