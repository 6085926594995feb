import KeychainFSModel
import KeychainFSStore
import Foundation

extension Keychain {
    /// The attributes and persistent reference of every item `query` matches, handed to `body` one at a
    /// time: what SecItemCopyMatching with kSecReturnAttributes, kSecReturnPersistentRef and
    /// kSecMatchLimitAll returns (the same access groups, sync rule and lock: a row of an unavailable
    /// class fails the call), without holding every result at once. The filesystem's listings use it: a
    /// service of 100,000 accounts is listed in the memory of its names. Never the secret, so never a prompt.
    public func enumerateAttributes(
        _ query: KeychainDictionary, caller: Caller,
        _ body: (_ attributes: [String: KeychainValue], _ persistentRef: Data) throws(KeychainError) -> Void
    ) throws(KeychainError) {
        try Self.requireGroups(caller)
        let q = try ParsedQuery.parse(query)
        let schema = q.schema!
        guard !schema.isVirtual, q.matchKeys.isEmpty, !q.hasReturnKeys, !q.hasValueRef, q.persistentRef == nil else {
            // The identity join, kSecMatch… filters, references: through SecItemCopyMatching (it has their rules).
            var full = query
            full[QueryKey.returnAttributes] = true
            full[QueryKey.returnPersistentRef] = true
            full[QueryKey.matchLimit] = .string(QueryKey.matchLimitAll)
            let results: [KeychainValue]
            do { results = try copyMatching(full, caller: caller)?.arrayValue ?? [] } catch
                where error.status == SecStatus.itemNotFound
            { return }
            for case .dictionary(var attributes) in results {
                guard let ref = attributes.removeValue(forKey: QueryKey.valuePersistentRef)?.dataValue else { continue }
                try body(attributes, ref)
            }
            return
        }
        if q.useKeys[QueryKey.useItemList] != nil { throw .param("kSecUseItemList is not supported") }
        var filter = try filter(for: q, caller: caller)
        // In chunks, each under the keybag's lock: a listing of a million items must not hold off a device
        // lock (or every other call) for the seconds it takes. An item of a class that became unavailable
        // between chunks fails the listing, as it would have at the start.
        filter.rowidAbove = 0
        var read = Self.enumerationChunk
        while read == Self.enumerationChunk {
            read = 0
            try protection.withLock { keybag throws(KeychainError) in
                try store.read { db in
                    try ItemTable.forEach(db, schema, filter, limit: Self.enumerationChunk) { row in
                        read += 1
                        filter.rowidAbove = row.rowid
                        try body(
                            try openAttributes(row, schema: schema, keybag: keybag), persistentReference(row, schema))
                    }
                }
            }
        }
    }

    /// Items a listing reads per hold of the keybag's lock (~2 ms of work).
    static let enumerationChunk = 256
}
