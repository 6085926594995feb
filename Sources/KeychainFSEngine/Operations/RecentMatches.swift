import KeychainFSModel
import KeychainFSStore
import Foundation

/// What a lookup's SQL found, by the filter it ran: the UUIDs of the rows, in the order SQL gave them, for one
/// keychain generation (``Keychain/recentMatches``). A program asks for the same item again and again; with
/// its rows in the row cache, the next lookup under the same generation reads no SQL and decrypts only the
/// secret (measured: the select and the check that a cached row is the row found were 44 % of a lookup by
/// primary key). Any change of an item or of the device state starts a new generation, which empties it,
/// as it empties the row cache, so a match never outlives an add, an update, a delete or a lock.
package struct MatchKey: Hashable, Sendable {
    let table: String
    let codes: [String]
    /// The lookup hashes each column must equal one of (keyed hashes: no attribute value in plaintext).
    let hashes: [[Data]]
    let limit: Int

    /// The key of a filter of lookup columns alone; nil for one that names rows (a persistent reference, an
    /// item list, a chunk of a listing) or a protection class: those are answered from SQL every time.
    init?(_ schema: ItemClassSchema, _ filter: ItemTable.Filter, limit: Int) {
        guard filter.isByLookupsAlone else { return nil }
        let equals = filter.equalsByCode
        table = schema.code
        codes = equals.map(\.code)
        hashes = equals.map(\.oneOf)
        self.limit = limit
    }

    /// Hashes each lookup hash's bytes (``Hasher/combine(contentsOf:)``). Equality still compares every byte.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(table)
        hasher.combine(limit)
        for column in hashes {
            hasher.combine(column.count)
            for hash in column { hasher.combine(contentsOf: hash) }
        }
    }
}

extension Keychain {
    /// The entries a lookup under `generation` found last time, each still in the row cache and reachable
    /// by the caller, and of a class available right now (the lock is never cached); nil when any is not
    /// (the caller asks SQL). An empty array: SQL found nothing.
    func recentEntries(_ key: MatchKey, generation: UInt64, caller: Caller, keybag: Keybag) throws(KeychainError)
        -> [RowCache.Entry]?
    {
        guard let uuids = recentMatches.value(key, generation: generation) else { return nil }
        var entries: [RowCache.Entry] = []
        entries.reserveCapacity(uuids.count)
        for uuid in uuids {
            guard let entry = try cachedEntry(uuid, generation: generation, caller: caller, keybag: keybag) else {
                return nil
            }
            entries.append(entry)
        }
        return entries
    }
}
