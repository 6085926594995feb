import KeychainModel
import Foundation

/// Recently used rows, by UUID: the sealed row (the secret stays encrypted) and its decrypted
/// attributes, for one keychain generation (so class-A metadata never outlives a lock).
package final class RowCache: Sendable {
    package struct Entry: Sendable {
        package let row: StoredRow
        package let attributes: [String: KeychainValue]
        package init(row: StoredRow, attributes: [String: KeychainValue]) {
            self.row = row; self.attributes = attributes
        }
    }

    /// Enough for a hot set of thousands of items; a row costs about a kilobyte here.
    private let cache = GenerationalCache<Data, Entry>(capacity: 8192)

    package init() {}

    package func entry(_ uuid: Data, generation: UInt64) -> Entry? {
        cache.value(uuid, generation: generation)
    }

    package func clear() {
        cache.removeAll()
    }

    package func store(_ entry: Entry, generation: UInt64) {
        cache.store(entry, for: entry.row.uuid, generation: generation)
    }
}
