import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium

/// The newest version this vault applied or wrote, per item file, tombstones included: what a record from
/// the repository must not be older than. Without it a host could put an old item file back over a
/// tombstone (git keeps every old ciphertext) and every vault, having no row left to compare with, would
/// bring the deleted item back. Kept in `sync/versions`, sealed under a key derived from the sync key (the
/// names are already keyed hashes; the dates say when items changed). Never pruned: an old file can come
/// back at any time, and an entry is under 100 bytes.
package struct SyncVersions {
    package struct Seen: Codable, Equatable {
        /// The bits of the version's mdat (as the record encodes it, so it compares exactly).
        package var mdatBits: UInt64
        /// Whether that version was a tombstone.
        package var deleted: Bool
        package var modified: Date { Date(timeIntervalSinceReferenceDate: Double(bitPattern: mdatBits)) }
    }

    package private(set) var seen: [String: Seen] = [:]

    /// What this vault has seen of `name` when `record` is older than that, else nil.
    package func newerThan(_ record: SyncRecord, name: String) -> Seen? {
        guard let known = seen[name], record.modificationDate < known.modified else { return nil }
        return known
    }

    /// Remembers `record` as a version of `name` (if newer than the one remembered).
    package mutating func note(_ record: SyncRecord, name: String) {
        if let known = seen[name], known.modified >= record.modificationDate { return }
        seen[name] = Seen(
            mdatBits: record.modificationDate.timeIntervalSinceReferenceDate.bitPattern, deleted: record.deleted)
    }

    package static func load(_ path: String, key: GuardedKey) throws(KeychainError) -> SyncVersions {
        guard let sealed = try FileIO.read(path) else { return SyncVersions() }
        guard let plain = try? AEAD.open(sealed, key: key, associatedData: binding),
            let seen = try? JSONDecoder().decode([String: Seen].self, from: plain)
        else {
            throw KeychainError(
                SecStatus.decode,
                "the vault's sync memory (sync/versions) does not open: it was modified (removing it starts an empty memory)"
            )
        }
        return SyncVersions(seen: seen)
    }

    package func save(_ path: String, key: GuardedKey) throws(KeychainError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let plain = try? encoder.encode(seen) else {
            throw KeychainError(SecStatus.internalComponent, "cannot encode the sync memory")
        }
        try FileIO.writeAtomically(AEAD.seal(plain, key: key, associatedData: Self.binding), to: path, mode: 0o600)
    }

    private static let binding = Data("keychainfs.sync.versions.v1".utf8)
}
