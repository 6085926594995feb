import KeychainFSModel
import KeychainFSStore
import Foundation

extension Keychain {
    /// SecItemDelete (docs/reference/keychain-semantics.md §4.4): deletes every match. It needs no key, so deleting items of a
    /// class that is unavailable while locked succeeds (docs/spec.md §2's choice).
    public func delete(_ query: KeychainDictionary, caller: Caller) throws(KeychainError) {
        try reporting(.delete, query, caller) { () throws(KeychainError) in try deleting(query, caller: caller) }
    }

    private func deleting(_ query: KeychainDictionary, caller: Caller) throws(KeychainError) {
        try Self.requireGroups(caller)
        let q = try ParsedQuery.parse(query)
        let schema = q.schema!
        // docs/spec.md §2: exactly kSecMatchLimitAll is accepted (what Delete does anyway; code compiled on Linux
        // takes branches written for macOS's file keychain, which accepts it); any other kSecMatch… is -50.
        let onlyLimitAll =
            q.matchKeys == [QueryKey.matchLimit] && query[QueryKey.matchLimit] == .string(QueryKey.matchLimitAll)
        if !q.matchKeys.isEmpty && !onlyLimitAll {
            throw .param(
                "kSecMatch… keys other than kSecMatchLimit: kSecMatchLimitAll are not allowed in SecItemDelete")
        }
        if q.hasValueRef { throw .param("kSecValueRef is not supported for class '\(schema.code)'") }
        if q.useKeys[QueryKey.useItemList] != nil { throw .param("kSecUseItemList is not supported") }
        if schema.isVirtual { return try deleteIdentities(q, caller: caller) }
        let filter = try filter(for: q, caller: caller)
        var deleted: [Data] = []
        defer { noteChange(.items(changed: deleted)) }
        try protection.withLock { _ throws(KeychainError) in
            try store.write(crashPoint: "delete.beforeCommit") { db in
                let uuids = try ItemTable.delete(db, schema, matching: filter)
                guard !uuids.isEmpty else { throw KeychainError.notFound }
                deleted = uuids.map { persistentReference(uuid: $0, schema) }
            }
        }
    }
}
