import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium

/// An item file's sealed plaintext (docs/spec.md §14): the record's length and bytes, padded with zeros to
/// a power of two of at least 512 bytes, so a file's size tells only its bucket. The file around it is a
/// ``SignedSyncFile``; sync format 1's unsigned files (`KCS1`) are recognized only to be refused.
package enum SyncFile {
    /// The magic of sync format 1's unsigned item files.
    package static let magic = Data("KCS1".utf8)
    /// Item files live here, named by ``SyncKeys/fileName(for:)``.
    package static let directory = "items"

    /// The record's length and bytes, padded with zeros to a power of two of at least 512 bytes.
    static func pad(_ record: SyncRecord) -> Data {
        let body = record.encoded
        var plain = Data()
        withUnsafeBytes(of: UInt32(body.count).bigEndian) { plain.append(contentsOf: $0) }
        plain.append(body)
        var bucket = 512
        while bucket < plain.count { bucket *= 2 }
        plain.append(Data(count: bucket - plain.count))
        return plain
    }

    /// The record bytes inside a padded plaintext (a fuzz target with ``SyncRecord/decode(_:)``).
    package static func unpad(_ plain: Data) throws(SyncFormatError) -> SyncRecord {
        guard plain.count >= 4 else { throw SyncFormatError("the item file is truncated") }
        let length = plain.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        guard length <= plain.count - 4 else { throw SyncFormatError("the item file's length is out of range") }
        return try SyncRecord.decode(Data(plain.dropFirst(4).prefix(length)))
    }
}

/// Keys derived from the sync key, which every member holds for as long as the circle lives: one to name
/// item files, one for invitations' expiry, one for the vault's version memory. Items are sealed with the
/// epoch's key instead (``CircleKeys``). Derived per use and wiped after.
package struct SyncKeys: Sendable {
    /// Names item files (keyed hash of class and primary key).
    package let nameKey: GuardedKey
    /// Seals invitation expiry dates for members (so any member can remove expired invitations).
    package let memberKey: GuardedKey
    /// Seals the vault's own memory of the versions it has seen (`sync/versions`).
    package let versionKey: GuardedKey

    /// Derives the keys from the sync key.
    package init(syncKey: GuardedKey) {
        nameKey = KeyDerivation.subkey(of: syncKey, context: "keychainfs.sync.name-key.v1")
        memberKey = KeyDerivation.subkey(of: syncKey, context: "keychainfs.sync.member-key.v1")
        versionKey = KeyDerivation.subkey(of: syncKey, context: "keychainfs.sync.version-key.v1")
    }

    /// The file name of an item: hex of a keyed hash of its class and primary key.
    package func fileName(for record: SyncRecord) -> String {
        KeyDerivation.keyedHash(record.identityParts, key: nameKey, outputBytes: 20).map { String(format: "%02x", $0) }
            .joined()
    }

    /// Wipes every key.
    package func wipe() { nameKey.wipe(); memberKey.wipe(); versionKey.wipe() }
}
