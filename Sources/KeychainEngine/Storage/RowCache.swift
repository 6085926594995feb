import Foundation

/// Recently used rows, by UUID: the sealed row (the secret stays encrypted) and its decrypted
/// attributes, for one keychain generation (so class-A metadata never outlives a lock).
final class RowCache: Sendable {
    struct Entry: Sendable {
        let row: StoredRow
        let attributes: [String: KeychainValue]
    }

    /// Enough for a hot set of thousands of items; a row costs about a kilobyte here.
    private let cache = GenerationalCache<Data, Entry>(capacity: 8192)

    func entry(_ uuid: Data, generation: UInt64) -> Entry? {
        cache.value(uuid, generation: generation)
    }

    func clear() {
        cache.removeAll()
    }

    func store(_ entry: Entry, generation: UInt64) {
        cache.store(entry, for: entry.row.uuid, generation: generation)
    }
}
