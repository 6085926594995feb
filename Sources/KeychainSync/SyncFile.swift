import KeychainEngine
import KeychainModel
import KeychainStore
import Foundation
import SodiumCrypto

/// The repository's item file (docs/spec.md §14): `KCS1` and one XChaCha20-Poly1305 box under the sync item key,
/// bound to the file's name (the item's identity). The plaintext is the record's length and bytes, padded
/// with zeros to a power of two of at least 512 bytes, so a file's size tells only its bucket.
public enum SyncFile {
    package static let magic = Data("KCS1".utf8)
    /// Item files live here, named by ``SyncKeys/fileName(for:)``.
    public static let directory = "items"

    /// Seals a record for the file `name`.
    public static func seal(_ record: SyncRecord, name: String, key: GuardedKey) -> Data {
        let body = record.encoded
        var plain = Data()
        withUnsafeBytes(of: UInt32(body.count).bigEndian) { plain.append(contentsOf: $0) }
        plain.append(body)
        var bucket = 512
        while bucket < plain.count { bucket *= 2 }
        plain.append(Data(count: bucket - plain.count))
        return magic + AEAD.seal(plain, key: key, associatedData: binding(name))
    }

    /// Opens and parses the file `name` (a fuzz target with ``SyncRecord/decode(_:)``): a record, or a
    /// typed error for anything else: foreign bytes, a wrong key, a file moved to another name.
    public static func open(_ bytes: Data, name: String, key: GuardedKey) throws(SyncFormatError) -> SyncRecord {
        guard bytes.count > magic.count, bytes.prefix(magic.count) == magic else { throw SyncFormatError("not a keychainfs sync item file") }
        let plain: Data
        do { plain = try AEAD.open(Data(bytes.dropFirst(magic.count)), key: key, associatedData: binding(name)) } catch {
            throw SyncFormatError("the item file does not open with this repository's sync key (corrupted or renamed)")
        }
        return try unpad(plain)
    }

    /// The record bytes inside a padded plaintext.
    public static func unpad(_ plain: Data) throws(SyncFormatError) -> SyncRecord {
        guard plain.count >= 4 else { throw SyncFormatError("the item file is truncated") }
        let length = plain.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        guard length <= plain.count - 4 else { throw SyncFormatError("the item file's length is out of range") }
        return try SyncRecord.decode(Data(plain.dropFirst(4).prefix(length)))
    }

    package static func binding(_ name: String) -> Data { Data("keychainfs.sync.item.v1/\(name)".utf8) }
}

/// Keys derived from the sync key: one to seal items, one to name them. Derived per use and wiped after.
public struct SyncKeys: Sendable {
    /// Seals item files.
    public let itemKey: GuardedKey
    /// Names item files (keyed hash of class and primary key).
    public let nameKey: GuardedKey
    /// Seals invitation expiry dates for members (so any member can remove expired invitations).
    public let memberKey: GuardedKey
    /// Seals the vault's own memory of the versions it has seen (`sync/versions`).
    package let versionKey: GuardedKey

    /// Derives the keys from the sync key.
    public init(syncKey: GuardedKey) {
        itemKey = KeyDerivation.subkey(of: syncKey, context: "keychainfs.sync.item-key.v1")
        nameKey = KeyDerivation.subkey(of: syncKey, context: "keychainfs.sync.name-key.v1")
        memberKey = KeyDerivation.subkey(of: syncKey, context: "keychainfs.sync.member-key.v1")
        versionKey = KeyDerivation.subkey(of: syncKey, context: "keychainfs.sync.version-key.v1")
    }

    /// The file name of an item: hex of a keyed hash of its class and primary key.
    public func fileName(for record: SyncRecord) -> String {
        KeyDerivation.keyedHash(record.identityParts, key: nameKey, outputBytes: 20).map { String(format: "%02x", $0) }.joined()
    }

    /// Wipes every key.
    public func wipe() { itemKey.wipe(); nameKey.wipe(); memberKey.wipe(); versionKey.wipe() }
}
