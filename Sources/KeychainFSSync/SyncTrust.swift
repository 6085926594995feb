import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium

/// What this vault has verified of its circle, kept in `VAULT/sync/trust` sealed under the class C key:
/// the membership log as last verified (a later one must extend it), the remote commit last seen (a later
/// one must descend from it), the epoch keys it was given, and the invitations it issued and not yet used.
struct SyncTrust {
    /// An invitation this vault issued: the key the joiner's request is MACed with, and its expiry.
    struct Invite {
        var requestKey: Data
        var expiry: Date
    }

    var log = Data()
    var remote = ""
    var epochKeys: [Int: Data] = [:]
    var invites: [String: Invite] = [:]

    static let file = "trust"

    /// The verified membership, nil before the first log was seen (a joiner before its first fetch).
    func membership() throws(KeychainError) -> Membership? {
        guard !log.isEmpty else { return nil }
        // Verified with its signatures before it was saved, and sealed under the class C key since.
        do { return try MemberLog.verify(log, signatures: false) } catch {
            throw KeychainError(SecStatus.decode, "the vault's trusted membership log does not verify: \(error)")
        }
    }

    var encoded: Data {
        var epochs: [String: KeychainValue] = [:]
        for (epoch, key) in epochKeys { epochs[String(epoch)] = .data(key) }
        var pending: [String: KeychainValue] = [:]
        for (name, invite) in invites {
            pending[name] = .dictionary(["key": .data(invite.requestKey), "until": .date(invite.expiry)])
        }
        return ValueCodec.encode(
            .dictionary([
                "log": .data(log), "remote": .string(remote), "epochs": .dictionary(epochs),
                "invites": .dictionary(pending),
            ]))
    }

    static func decode(_ plain: Data) throws(KeychainError) -> SyncTrust {
        let bad = KeychainError(SecStatus.decode, "the vault's sync trust memory is malformed")
        guard let d = (try? ValueCodec.decode(plain))?.dictionaryValue, let log = d["log"]?.dataValue,
            let remote = d["remote"]?.stringValue,
            let epochs = d["epochs"]?.dictionaryValue, let pending = d["invites"]?.dictionaryValue
        else { throw bad }
        var trust = SyncTrust(log: log, remote: remote)
        for (epoch, key) in epochs {
            guard let n = Int(epoch), let data = key.dataValue, data.count == GuardedKey.byteCount else { throw bad }
            trust.epochKeys[n] = data
        }
        for (name, invite) in pending {
            guard let i = invite.dictionaryValue, let key = i["key"]?.dataValue, case .date(let until)? = i["until"]
            else { throw bad }
            trust.invites[name] = Invite(requestKey: key, expiry: until)
        }
        return trust
    }

    mutating func wipe() {
        for epoch in epochKeys.keys { Sodium.wipe(&epochKeys[epoch]!) }
        for name in invites.keys { Sodium.wipe(&invites[name]!.requestKey) }
    }
}

extension Keychain {
    /// The vault's trust memory (empty before init or join wrote one).
    func loadSyncTrust() throws(KeychainError) -> SyncTrust {
        guard var plain = try readSyncSecret(SyncTrust.file) else { return SyncTrust() }
        defer { Sodium.wipe(&plain) }
        return try SyncTrust.decode(plain)
    }

    func saveSyncTrust(_ trust: SyncTrust) throws(KeychainError) {
        var plain = trust.encoded
        defer { Sodium.wipe(&plain) }
        try writeSyncSecret(plain, SyncTrust.file)
    }
}
