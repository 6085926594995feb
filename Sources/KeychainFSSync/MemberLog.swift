import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Crypto
import Foundation
import KeychainFSSodium

/// One entry of the membership log (`members/log`): who did what to whom, in which epoch, signed.
package struct MemberLogEntry: Sendable, Equatable {
    /// What an entry does.
    package enum Operation: String, Sendable {
        /// The genesis entry: the founder adds itself (self-signed), epoch 1.
        case found
        /// A member admits a joiner (same epoch, a keyring that includes it).
        case add
        /// A member removes another (a new epoch whose keyring leaves it out).
        case remove
        /// A member leaves (same epoch: the next member to sync starts a new one without it).
        case leave
        /// A member starts a new epoch without changing who is in.
        case rotate
    }

    /// Position in the log (the genesis entry is 0).
    package var sequence: Int
    /// SHA-256 of the previous entry's bytes (empty for the genesis entry).
    package var previous: Data
    /// What the entry does.
    package var operation: Operation
    /// Whom it concerns (nil for rotate).
    package var subject: MemberKeys?
    /// The epoch in force after the entry.
    package var epoch: Int
    /// SHA-256 of the keyring file the entry puts in force (empty for leave).
    package var keyring: Data
    /// The signing key of the member that wrote the entry.
    package var signer: Data
    /// When it was written (the writer's clock: informative only).
    package var date: Date
    /// Ed25519 signature of ``signedBytes`` by `signer`.
    package var signature: Data

    /// Makes an unsigned entry.
    package init(
        sequence: Int, previous: Data, operation: Operation, subject: MemberKeys?, epoch: Int, keyring: Data,
        signer: Data, date: Date
    ) {
        self.sequence = sequence
        self.previous = previous
        self.operation = operation
        self.subject = subject
        self.epoch = epoch
        self.keyring = keyring
        self.signer = signer
        self.date = date
        signature = Data()
    }

    private var fields: [String: KeychainValue] {
        var d: [String: KeychainValue] = [
            "v": .number(1), "seq": .number(Int64(sequence)), "prev": .data(previous),
            "op": .string(operation.rawValue),
            "epoch": .number(Int64(epoch)), "keyring": .data(keyring), "by": .data(signer), "at": .date(date),
        ]
        if let subject {
            d["member"] = .dictionary([
                "name": .string(subject.name),
                "sign": .data(subject.signingKey),  // not a schema code
                "box": .data(subject.agreementKey),
            ])
        }
        return d
    }

    /// What the signature covers: a domain tag and the canonical encoding of every field but the signature.
    package var signedBytes: Data {
        Data("keychainfs.sync.member-log.v1\0".utf8) + ValueCodec.encode(.dictionary(fields))
    }

    /// The entry's canonical bytes.
    package var encoded: Data {
        var d = fields
        d["sig"] = .data(signature)
        return ValueCodec.encode(.dictionary(d))
    }

    /// What the next entry's `previous` must be.
    package var hash: Data { Data(SHA256.hash(data: encoded)) }

    /// Parses an entry's bytes (shape only; ``MemberLog/verify(_:)`` checks what they mean).
    package static func decode(_ bytes: Data) throws(SyncFormatError) -> MemberLogEntry {
        let bad = SyncFormatError("a membership log entry is malformed")
        guard let value = try? ValueCodec.decode(bytes), let d = value.dictionaryValue, d["v"] == .number(1),
            let sequence = d["seq"]?.numberValue, sequence >= 0, sequence < Int64(MemberLog.maxEntries),
            let previous = d["prev"]?.dataValue, let op = d["op"]?.stringValue, let operation = Operation(rawValue: op),
            case .number(let epoch)? = d["epoch"], epoch >= 1, epoch < Int64(UInt32.max),
            let keyring = d["keyring"]?.dataValue, let signer = d["by"]?.dataValue, case .date(let date)? = d["at"],
            let signature = d["sig"]?.dataValue, d.count == (d["member"] == nil ? 9 : 10)
        else { throw bad }
        var subject: MemberKeys?
        if let member = d["member"] {
            guard let m = member.dictionaryValue, m.count == 3, let name = m["name"]?.stringValue,
                MemberKeys.loggableName(name),
                let sign = m["sign"]?.dataValue, sign.count == Ed25519.publicKeyBytes,  // not a schema code
                let box = m["box"]?.dataValue, box.count == SealedBox.publicKeyBytes
            else { throw bad }
            subject = MemberKeys(name: name, signingKey: sign, agreementKey: box)
        }
        var entry = MemberLogEntry(
            sequence: Int(sequence), previous: previous, operation: operation, subject: subject, epoch: Int(epoch),
            keyring: keyring, signer: signer, date: date)
        entry.signature = signature
        guard entry.encoded == bytes else { throw SyncFormatError("a membership log entry is not in canonical form") }
        return entry
    }
}

/// The membership log file: its entries, each as a 4-byte big-endian length and its bytes. It is outside
/// input: at most ``maxEntries`` entries and ``maxBytes`` bytes.
package enum MemberLog {
    /// Where the log lives in the repository.
    package static let path = "members/log"
    /// The most entries a log may hold (a circle adding or removing a member every day for ten years).
    package static let maxEntries = 4096
    /// The most bytes a log may have (an entry is about 300 bytes).
    package static let maxBytes = 4 << 20

    /// Splits a log file into entries (a fuzz target).
    package static func parse(_ bytes: Data) throws(SyncFormatError) -> [MemberLogEntry] {
        guard bytes.count <= maxBytes else {
            throw SyncFormatError("the membership log is larger than \(maxBytes >> 20) MiB")
        }
        var entries: [MemberLogEntry] = []
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            guard entries.count < maxEntries else {
                throw SyncFormatError("the membership log has more than \(maxEntries) entries")
            }
            guard bytes.endIndex - offset >= 4 else { throw SyncFormatError("the membership log is truncated") }
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            offset += 4
            guard length <= bytes.endIndex - offset else { throw SyncFormatError("the membership log is truncated") }
            entries.append(try MemberLogEntry.decode(Data(bytes[offset..<offset + length])))
            offset += length
        }
        return entries
    }

    /// The file holding `entries`.
    package static func encode(_ entries: [MemberLogEntry]) -> Data {
        var out = Data()
        for entry in entries {
            let bytes = entry.encoded
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { out.append(contentsOf: $0) }
            out.append(bytes)
        }
        return out
    }

    /// Verifies the whole chain from the founder's genesis entry and returns who is in (a fuzz target):
    /// every entry in sequence, chained by hash, signed by a member current at that point, and allowed.
    /// `signatures: false` skips only the Ed25519 checks: for the copy this vault verified and keeps
    /// sealed under its class C key (``SyncTrust``), read several times per sync.
    package static func verify(_ bytes: Data, signatures: Bool = true) throws(SyncFormatError) -> Membership {
        let entries = try parse(bytes)
        guard let genesis = entries.first else { throw SyncFormatError("the membership log is empty") }
        var membership = try Membership(genesis: genesis, signatures: signatures)
        for entry in entries.dropFirst() { try membership.apply(entry, signatures: signatures) }
        return membership
    }
}
