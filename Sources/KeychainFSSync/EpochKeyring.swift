import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Crypto
import Foundation
import KeychainFSSodium

/// The keyring (`members/keyring`): the epoch key sealed to each current member's key-agreement key with
/// `crypto_box_seal`. A sealed box says nothing of who sealed it, so the keyring is authenticated by the
/// membership log: the entry that put it in force carries its SHA-256, under a member's signature.
package enum EpochKeyring {
    /// Where the keyring lives in the repository.
    package static let path = "members/keyring"
    /// The most bytes a keyring may have (a box is 80 bytes; a circle has at most a few thousand members).
    package static let maxBytes = 1 << 20

    /// The keyring of `epoch`: `key` sealed to each of `members`.
    static func seal(_ key: GuardedKey, epoch: Int, to members: [MemberKeys]) -> Data {
        var boxes: [String: KeychainValue] = [:]
        for member in members {
            if let box = SealedBox.seal(key, to: member.agreementKey) {
                boxes[SyncState.hex(member.signingKey)] = .data(box)
            }
        }
        return ValueCodec.encode(.dictionary(["epoch": .number(Int64(epoch)), "boxes": .dictionary(boxes)]))
    }

    /// The keyring's epoch and its boxes by signing key (hex) (a fuzz target).
    package static func parse(_ bytes: Data) throws(SyncFormatError) -> (epoch: Int, boxes: [String: Data]) {
        guard bytes.count <= maxBytes, let value = try? ValueCodec.decode(bytes), let d = value.dictionaryValue,
            case .number(let epoch)? = d["epoch"], epoch >= 1, let boxes = d["boxes"]?.dictionaryValue
        else {
            throw SyncFormatError("the epoch keyring is malformed")
        }
        var out: [String: Data] = [:]
        for (name, box) in boxes {
            guard let data = box.dataValue else { throw SyncFormatError("the epoch keyring is malformed") }
            out[name] = data
        }
        return (Int(epoch), out)
    }

    /// SHA-256 of a keyring file, as log entries carry it.
    package static func digest(_ bytes: Data) -> Data { Data(SHA256.hash(data: bytes)) }

    /// The epoch key `identity` finds in the keyring `bytes`, which `membership` must have put in force;
    /// nil when none is sealed to it.
    static func open(_ bytes: Data, membership: Membership, identity: SyncIdentity) throws(SyncFormatError)
        -> GuardedKey?
    {
        guard digest(bytes) == membership.keyringDigest else {
            throw SyncFormatError(
                "the epoch keyring is not the one the membership log put in force (replaced by the host?)")
        }
        let keyring = try parse(bytes)
        guard keyring.epoch == membership.epoch else {
            throw SyncFormatError("the epoch keyring is of epoch \(keyring.epoch), the log's is \(membership.epoch)")
        }
        guard let box = keyring.boxes[SyncState.hex(identity.keys.signingKey)] else { return nil }
        do { return try SealedBox.openKey(box, secret: identity.agreementSecret) } catch {
            throw SyncFormatError("the epoch key sealed to this vault does not open")
        }
    }
}
