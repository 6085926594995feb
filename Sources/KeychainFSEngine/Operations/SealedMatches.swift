import KeychainFSModel
import KeychainFSStore
import Foundation

/// An item found by its lookup columns alone, without opening it.
public struct SealedMatch: Sendable {
    /// Addresses the item (stable across updates).
    public let persistentRef: Data
    /// Its protection class (stored in the clear, as Apple's keyclass column).
    public let accessibility: Accessibility
}

extension Keychain {
    /// The items `query` names by their lookup columns (keyed hashes) alone: exactly what Delete matches.
    /// It needs no class key, so it answers while the device is locked, and tells no more than that the
    /// items exist (errSecInteractionNotAllowed already does) and their protection class. The filesystem
    /// uses it to find a locked item by its path so that `rmdir` deletes it (docs/spec.md §2).
    public func sealedMatches(_ query: KeychainDictionary, caller: Caller, limit: Int) throws(KeychainError)
        -> [SealedMatch]
    {
        try Self.requireGroups(caller)
        let q = try ParsedQuery.parse(query)
        guard let schema = q.schema, !schema.isVirtual else {
            throw .param("sealed matches are found in stored classes only")
        }
        let filter = try filter(for: q, caller: caller)
        return try store.read { db in try ItemTable.select(db, schema, filter, limit: limit) }.map {
            SealedMatch(persistentRef: persistentReference($0, schema), accessibility: $0.accessibility)
        }
    }
}
