import KeychainFSModel
import Foundation

/// Recently used rows, by UUID: the sealed row (the secret stays encrypted) and its decrypted
/// attributes, for one keychain generation (so class-A metadata never outlives a lock).
package final class RowCache: Sendable {
    package struct Entry: Sendable {
        /// The row without its lookup columns (memory): ``lookupsDigest`` stands for them.
        package let row: StoredRow
        package let attributes: [String: KeychainValue]
        /// A digest of the lookup columns the attributes were verified with (the attribute box authenticates
        /// them), seeded per process so a vault's writer cannot aim at it.
        package let lookupsDigest: Int

        /// An entry for `row`, whose attributes were just opened (and so verified against its columns).
        /// `forCache: false` (a listing's rows, never stored) skips the digest.
        package init(row: StoredRow, attributes: [String: KeychainValue], forCache: Bool = true) {
            self.init(row, attributes, forCache ? Self.digest(row.lookups) : 0)
        }

        private init(_ row: StoredRow, _ attributes: [String: KeychainValue], _ lookupsDigest: Int) {
            var kept = row
            kept.lookups = []
            self.row = kept; self.attributes = attributes; self.lookupsDigest = lookupsDigest
        }

        /// This entry's attributes for `found` (its secret columns as found), if `found` is the row they were
        /// opened from: the same sealed attributes, protection class and lookup columns, so opening it again
        /// would give them. Nil otherwise.
        package func reopened(as found: StoredRow) -> Entry? {
            guard found.metadata == row.metadata, found.accessibility == row.accessibility,
                Self.digest(found.lookups) == lookupsDigest
            else { return nil }
            return Entry(found, attributes, lookupsDigest)
        }

        private static func digest(_ lookups: [Data?]) -> Int {
            var hasher = Hasher()
            for lookup in lookups {
                guard let lookup else { hasher.combine(-1); continue }
                hasher.combine(contentsOf: lookup)
            }
            return hasher.finalize()
        }
    }

    /// Enough for a hot set of thousands of items; a row costs about a kilobyte here.
    private let cache = GenerationalCache<Data, Entry>(capacity: 8192)

    package init() {}

    package func entry(_ uuid: Data, generation: UInt64) -> Entry? {
        cache.value(uuid, generation: generation)
    }

    /// Forgets every row after a change; `generation` is the keychain's after it (see
    /// ``GenerationalCache/removeAll(olderThan:)``).
    package func clear(after generation: UInt64) {
        cache.removeAll(olderThan: generation)
    }

    package func store(_ entry: Entry, generation: UInt64) {
        cache.store(entry, for: entry.row.uuid, generation: generation)
    }
}
