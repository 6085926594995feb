import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Crypto
import Foundation
import KeychainFSSodium

/// A one-time invitation code: 30 symbols of Crockford's base32 (150 bits), printed in groups of five.
package struct InvitationCode: Sendable, Equatable {
    package static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    package static let symbols = 30
    /// The canonical symbols (no separators, upper case).
    package let canonical: String

    /// A fresh random code.
    package static func random() -> InvitationCode {
        let bytes = Sodium.randomBytes(symbols)
        // 256 is a multiple of 32, so `% 32` is uniform.
        return InvitationCode(canonical: String(bytes.map { alphabet[Int($0) % 32] }))
    }

    private init(canonical: String) { self.canonical = canonical }

    /// Parses what a person typed (a fuzz target): separators and spaces ignored, case-insensitive,
    /// O/I/L read as 0/1/1 as Crockford's base32 does; anything else is an error that echoes nothing.
    package static func parse(_ text: String) throws(SyncFormatError) -> InvitationCode {
        var out = ""
        for ch in text.uppercased() {
            if ch == "-" || ch == " " || ch == "\t" || ch == "\n" || ch == "\r" { continue }
            let mapped: Character = ch == "O" ? "0" : (ch == "I" || ch == "L") ? "1" : ch
            guard alphabet.contains(mapped) else {
                throw SyncFormatError("the invitation code has a character that is not in its alphabet")
            }
            out.append(mapped)
            guard out.count <= symbols else { break }
        }
        guard out.count == symbols else {
            throw SyncFormatError("an invitation code has \(symbols) characters (in groups of five)")
        }
        return InvitationCode(canonical: out)
    }

    /// The code for people: groups of five joined by dashes.
    package var grouped: String {
        stride(from: 0, to: canonical.count, by: 5).map { i in
            String(canonical.dropFirst(i).prefix(5))
        }.joined(separator: "-")
    }

    /// The key the code seals the invitation with (the code has 150 bits: no slow hash needed).
    package func sealingKey() -> GuardedKey { derived("keychainfs.sync.invitation-seal.v1") }

    /// The key the joiner MACs its request with: only the inviter (who keeps it) and the code's holder know it.
    package func requestKey() -> GuardedKey { derived("keychainfs.sync.invitation-request.v2") }

    private func derived(_ context: String) -> GuardedKey {
        let seed = GuardedKey.filled { dst in
            let digest = SHA256.hash(data: Data("keychainfs.sync.invitation.v1/\(canonical)".utf8))
            digest.withUnsafeBytes { dst.copyMemory(from: $0) }
        }
        defer { seed.wipe() }
        return KeyDerivation.subkey(of: seed, context: context)
    }

    /// The invitation's file name: a hash of the code, which tells nothing of the code.
    package var fileName: String {
        let key = sealingKey()
        defer { key.wipe() }
        return KeyDerivation.keyedHash([Data("name".utf8)], key: key, outputBytes: 16).map {
            String(format: "%02x", $0)
        }.joined()
    }
}

/// What an invitation gives its joiner: the sync key (it names the item files; reading them takes an epoch
/// key, which only admission gives) and the membership log as the inviter last verified it (its length
/// and last hash), so that no host can serve the joiner another circle's log or an older one.
package struct InvitationContent: Sendable {
    /// The circle's sync key.
    package let syncKey: GuardedKey
    /// How many entries the inviter's log had.
    package let logCount: Int
    /// The hash of its last entry.
    package let logHead: Data
}

/// An invitation file: `KCI2`, the expiry, sync key and log pin sealed under the code, and the expiry
/// sealed under the members' key (so a member can remove it once expired without the code).
package enum InvitationFile {
    package static let magic = Data("KCI2".utf8)
    /// Invitations live here.
    package static let directory = "invitations"
    /// The longest an invitation may live: a code is a bearer secret until used.
    package static let maxLifetime: TimeInterval = 7 * 24 * 3600

    /// The file for `code`, carrying `syncKey` and the log pin, valid until `expiry`.
    package static func seal(
        syncKey: GuardedKey, logCount: Int, logHead: Data, code: InvitationCode, expiry: Date, memberKey: GuardedKey
    ) -> Data {
        let name = code.fileName
        let key = code.sealingKey()
        defer { key.wipe() }
        var stamp = Data()
        withUnsafeBytes(of: expiry.timeIntervalSince1970.bitPattern.bigEndian) { stamp.append(contentsOf: $0) }
        var pin = Data()
        withUnsafeBytes(of: UInt32(logCount).bigEndian) { pin.append(contentsOf: $0) }
        pin.append(logHead)
        let forJoiner = syncKey.withBytes {
            AEAD.seal(stamp + Data($0) + pin, key: key, associatedData: binding(name, "joiner"))
        }
        let forMembers = AEAD.seal(stamp, key: memberKey, associatedData: binding(name, "members"))
        var out = magic
        withUnsafeBytes(of: UInt32(forJoiner.count).bigEndian) { out.append(contentsOf: $0) }
        return out + forJoiner + forMembers
    }

    /// Splits a file into its two boxes (a fuzz target).
    package static func parse(_ bytes: Data) throws(SyncFormatError) -> (joiner: Data, members: Data) {
        guard bytes.count > 8, bytes.prefix(4) == magic else {
            throw SyncFormatError("not a keychainfs invitation file")
        }
        let length = bytes.dropFirst(4).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        guard length <= bytes.count - 8 else { throw SyncFormatError("the invitation file is truncated") }
        let body = Data(bytes.dropFirst(8))
        return (Data(body.prefix(length)), Data(body.dropFirst(length)))
    }

    /// What the file for `code` carries, if the code opens it and it has not expired.
    package static func open(_ bytes: Data, code: InvitationCode, now: Date = Date()) throws(SyncFormatError)
        -> InvitationContent
    {
        let refused = SyncFormatError("the invitation code is wrong or has expired")
        let key = code.sealingKey()
        defer { key.wipe() }
        let size = GuardedKey.byteCount
        guard let boxes = try? parse(bytes),
            var plain = try? AEAD.open(boxes.joiner, key: key, associatedData: binding(code.fileName, "joiner")),
            plain.count == 8 + size + 4 + 32
        else { throw refused }
        defer { Sodium.wipe(&plain) }
        guard now < expiry(plain) else { throw refused }
        guard let syncKey = try? GuardedKey.copying(plain.dropFirst(8).prefix(size)) else { throw refused }
        let pin = Data(plain.dropFirst(8 + size))
        return InvitationContent(
            syncKey: syncKey, logCount: pin.prefix(4).reduce(0) { $0 << 8 | Int($1) }, logHead: Data(pin.dropFirst(4)))
    }

    /// When the invitation `name` expires, read with the members' key; nil if the file does not open.
    package static func expiry(_ bytes: Data, name: String, memberKey: GuardedKey) -> Date? {
        guard let boxes = try? parse(bytes),
            let plain = try? AEAD.open(boxes.members, key: memberKey, associatedData: binding(name, "members")),
            plain.count == 8
        else { return nil }
        return expiry(plain)
    }

    private static func expiry(_ plain: Data) -> Date {
        let bits = plain.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Date(timeIntervalSince1970: Double(bitPattern: bits))
    }

    package static func binding(_ name: String, _ part: String) -> Data {
        Data("keychainfs.sync.invitation.v2/\(part)/\(name)".utf8)
    }
}
