import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Crypto
import Foundation
import KeychainFSSodium

/// A member's public half, as the membership log names it: a name, an Ed25519 signing key and an X25519
/// key-agreement key.
package struct MemberKeys: Sendable, Hashable {
    /// What people call the member (`--name`, the host's name by default).
    package let name: String
    /// Ed25519 public key: what the member's log entries and records are verified with.
    package let signingKey: Data
    /// X25519 public key: what epoch keys are sealed to.
    package let agreementKey: Data

    /// Makes member keys.
    package init(name: String, signingKey: Data, agreementKey: Data) {
        self.name = name
        self.signingKey = signingKey
        self.agreementKey = agreementKey
    }

    /// The first 10 bytes of SHA-256("keychainfs.sync.member.v1" ‖ signing key ‖ agreement key), as 20 hex
    /// digits in groups of four: what two people compare to know they mean the same vault.
    package var fingerprint: String {
        var hash = SHA256()
        hash.update(data: Data("keychainfs.sync.member.v1".utf8))
        hash.update(data: signingKey)
        hash.update(data: agreementKey)
        let hex = Data(hash.finalize()).prefix(10).map { String(format: "%02x", $0) }.joined()
        return stride(from: 0, to: hex.count, by: 4).map { String(hex.dropFirst($0).prefix(4)) }.joined(separator: "-")
    }

    /// Whether `text` names this member: its name, or its fingerprint with or without dashes.
    package func matches(_ text: String) -> Bool {
        let compact = { (s: String) in s.lowercased().filter { $0 != "-" && $0 != " " } }
        return text == name || compact(text) == compact(fingerprint)
    }

    /// Names are printable, 1...64 characters (they come from the repository too): no control or format
    /// character, and no line or paragraph separator (``TextLines/isLineBreak(_:)``: U+2028 printed raw made a line).
    package static func validName(_ name: String) -> Bool {
        loggableName(name) && !name.unicodeScalars.contains(where: TextLines.isLineBreak)
    }

    /// What a name already in a circle's membership log may hold: the rule of the releases before line
    /// separators were refused (no control or format character), so a log written then still verifies;
    /// every command prints names escaped.
    package static func loggableName(_ name: String) -> Bool {
        (1...64).contains(name.count) && name.unicodeScalars.allSatisfy { !CharacterSet.controlCharacters.contains($0) }
    }
}

/// This vault's identity in its circle: the private halves, kept in `VAULT/sync/identity` sealed under the
/// class C key, never in the repository. Held in guarded memory and wiped after use.
package final class SyncIdentity: @unchecked Sendable {
    /// The public half.
    package let keys: MemberKeys
    let signingSeed: GuardedKey
    let agreementSecret: GuardedKey

    private init(name: String, signingSeed: GuardedKey, agreementSecret: GuardedKey) {
        self.signingSeed = signingSeed
        self.agreementSecret = agreementSecret
        keys = MemberKeys(
            name: name, signingKey: Ed25519.publicKey(seed: signingSeed),
            agreementKey: SealedBox.publicKey(secret: agreementSecret))
    }

    /// A fresh identity named `name`.
    static func generate(name: String) -> SyncIdentity {
        SyncIdentity(name: name, signingSeed: .random(), agreementSecret: .random())
    }

    /// Signs `message` as this member.
    func sign(_ message: Data) -> Data { Ed25519.sign(message, seed: signingSeed) }

    /// Wipes the private halves.
    func wipe() { signingSeed.wipe(); agreementSecret.wipe() }

    static let file = "identity"

    /// The secret file's plaintext: signing seed ‖ agreement secret ‖ name.
    var encoded: Data {
        var out = signingSeed.withBytes { Data($0) }
        agreementSecret.withBytes { out.append(contentsOf: $0) }
        return out + Data(keys.name.utf8)
    }

    static func decode(_ plain: Data) throws(KeychainError) -> SyncIdentity {
        let size = GuardedKey.byteCount
        guard plain.count > 2 * size, let seed = try? GuardedKey.copying(plain.prefix(size)),
            let secret = try? GuardedKey.copying(plain.dropFirst(size).prefix(size))
        else {
            throw KeychainError(SecStatus.decode, "the vault's sync identity is malformed")
        }
        return SyncIdentity(
            name: String(decoding: plain.dropFirst(2 * size), as: UTF8.self), signingSeed: seed, agreementSecret: secret
        )
    }
}

extension Keychain {
    /// Makes and stores this vault's identity (refused if it has one).
    func createSyncIdentity(name: String) throws(KeychainError) -> MemberKeys {
        guard MemberKeys.validName(name) else { throw .param("a member's name has 1 to 64 printable characters") }
        if FileManager.default.fileExists(atPath: syncDirectory + "/" + SyncIdentity.file) {
            throw KeychainError(SecStatus.duplicateItem, "this vault already has a sync identity")
        }
        let identity = SyncIdentity.generate(name: name)
        defer { identity.wipe() }
        var plain = identity.encoded
        defer { Sodium.wipe(&plain) }
        try writeSyncSecret(plain, SyncIdentity.file)
        return identity.keys
    }

    /// Calls `body` with this vault's identity, wiped afterwards.
    func withSyncIdentity<T>(_ body: (SyncIdentity) throws(KeychainError) -> T) throws(KeychainError) -> T {
        let identity = try loadSyncIdentity()
        defer { identity.wipe() }
        return try body(identity)
    }

    /// This vault's identity; the caller wipes it.
    func loadSyncIdentity() throws(KeychainError) -> SyncIdentity {
        guard var plain = try readSyncSecret(SyncIdentity.file) else {
            throw KeychainError(
                SecStatus.itemNotFound,
                "this vault has no sync identity (its circle predates members: see docs/sync.md)")
        }
        defer { Sodium.wipe(&plain) }
        return try SyncIdentity.decode(plain)
    }
}
