import Foundation

extension Keychain {
    /// SecItemDelete (reference §4.4): deletes every match. It needs no key, so deleting items of a
    /// class that is unavailable while locked succeeds (SPEC §2's choice).
    public func delete(_ query: KeychainDictionary, caller: Caller) throws(KeychainError) {
        try Self.requireGroups(caller)
        let q = try ParsedQuery.parse(query)
        let schema = q.schema!
        if !q.matchKeys.isEmpty { throw .param("kSecMatch… keys (kSecMatchLimit included) are not allowed in SecItemDelete") }
        if q.hasValueRef { throw .param("kSecValueRef is not supported for class '\(schema.code)'") }
        if q.useKeys[SecKey.useItemList] != nil { throw .param("kSecUseItemList is not supported") }
        if schema.isVirtual { return try deleteIdentities(q, caller: caller) }
        let filter = try filter(for: q, caller: caller)
        var deleted: [Data] = []
        defer { noteChange(.items(changed: deleted)) }
        try protection.withLock { _ throws(KeychainError) in
            try store.write { db in
                let rows = try ItemTable.select(db, schema, filter)
                guard !rows.isEmpty else { throw KeychainError.notFound }
                deleted = rows.map { persistentReference($0, schema) }
                try ItemTable.delete(db, schema, rowids: rows.map(\.rowid))
            }
        }
    }
}
