import KeychainFSModel
import KeychainFSStore
import Foundation
import GRDB
import KeychainFSSodium

extension Keychain {
    /// SecItemAdd (docs/reference/keychain-semantics.md §4.1). Returns what the `r_…` keys ask for, or nil.
    public func add(_ dictionary: KeychainDictionary, caller: Caller) throws(KeychainError) -> KeychainValue? {
        try reporting(.add, dictionary, caller) { () throws(KeychainError) in try adding(dictionary, caller: caller) }
    }

    private func adding(_ dictionary: KeychainDictionary, caller: Caller) throws(KeychainError) -> KeychainValue? {
        let item = try prepareAdd(dictionary, caller: caller)
        return try protection.withLock { keybag throws(KeychainError) -> KeychainValue? in
            var row = try item.sealedRow(keybag: keybag, hasher: hasher)
            row.rowid = try store.write { db in try ItemTable.insert(db, item.schema, row) }
            let generation = noteChange(.items(changed: []))
            // The new row as a lookup would open it (the attributes just sealed), kept for the generation
            // the add began: the item's first read, often at once (a `stat` of a new `value`), decrypts no
            // attribute box. A later change drops it, as any entry.
            rows.store(RowCache.Entry(row: row, attributes: item.attributes), generation: generation)
            let persistentRef = persistentReference(row, item.schema)
            let q = item.query
            let reference =
                q.returnsRef && Schema.classesWithRefObjects.contains(item.schema.code)
                ? ResultBuilder.referenceDescription(
                    item.schema.code, attributes: item.attributes, persistentRef: persistentRef, secret: q.valueData)
                : nil
            return try ResultBuilder(query: q, schema: item.schema, forAdd: true)
                .value(attributes: item.attributes, persistentRef: persistentRef, reference: reference) { q.valueData }
        }
    }

    /// `SecItemAdd([kSecValueRef: identity])`: the identity's certificate and private key, added in one
    /// transaction (both land, or neither). A certificate already there is errSecDuplicateItem; a key
    /// already there is kept (another certificate may use it), as on iOS.
    public func addIdentity(certificate: KeychainDictionary, key: KeychainDictionary, caller: Caller)
        throws(KeychainError)
    {
        try reporting(.add, certificate, caller) { () throws(KeychainError) in
            try addingIdentity(certificate: certificate, key: key, caller: caller)
        }
    }

    private func addingIdentity(certificate: KeychainDictionary, key: KeychainDictionary, caller: Caller)
        throws(KeychainError)
    {
        let certificateItem = try prepareAdd(certificate, caller: caller)
        let keyItem = try prepareAdd(key, caller: caller)
        guard certificateItem.schema.code == Schema.certificate.code, keyItem.schema.code == Schema.key.code else {
            throw .param("an identity is added as a certificate and a key")
        }
        try protection.withLock { keybag throws(KeychainError) in
            let certificateRow = try certificateItem.sealedRow(keybag: keybag, hasher: hasher)
            let keyRow = try keyItem.sealedRow(keybag: keybag, hasher: hasher)
            try store.write { db in
                _ = try ItemTable.insert(db, certificateItem.schema, certificateRow)
                do { _ = try ItemTable.insert(db, keyItem.schema, keyRow) } catch let error as DatabaseError
                    where error.resultCode == .SQLITE_CONSTRAINT
                {
                    // The key is already in the keychain: the identity is complete (SQLite undid this statement only).
                }
            }
            noteChange(.items(changed: []))
        }
    }

    /// An item to add, checked and completed as SecItemAdd does before anything is stored.
    struct PreparedItem {
        let query: ParsedQuery
        let schema: ItemClassSchema
        let attributes: [String: KeychainValue]
        let accessibility: Accessibility
        let storedSecret: Data?

        /// The row to insert, sealed under the class keys the keybag holds now.
        func sealedRow(keybag: Keybag, hasher: LookupHasher) throws(KeychainError) -> StoredRow {
            // As Apple's securityd: s3dl_query_add (ItemDb.c) fails "pdmn=akpu but passcode is not set"
            // with errSecAuthFailed. The iOS simulator, which has no passcode, adds such items anyway.
            if accessibility == .whenPasscodeSetThisDeviceOnly, !keybag.record.hasPasscode {
                throw KeychainError(
                    SecStatus.authFailed, "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly needs a device passcode")
            }
            let keys = try keybag.keys(for: accessibility)
            let uuid = Sodium.randomBytes(16)
            let lookups = hasher.columns(for: attributes, schema: schema)
            let sealed = ItemSealer.seal(
                attributes: attributes, lookups: lookups, secret: storedSecret, schema: schema, uuid: uuid,
                accessibility: accessibility, keys: keys)
            return StoredRow(
                rowid: 0, uuid: uuid, accessibility: accessibility, metadata: sealed.metadata,
                rowKey: sealed.rowKey, secret: sealed.secret, lookups: lookups)
        }
    }

    /// Checks `dictionary` as SecItemAdd's argument and completes its attributes (defaults, dates, the
    /// derived ones); nothing is stored.
    func prepareAdd(_ dictionary: KeychainDictionary, caller: Caller) throws(KeychainError) -> PreparedItem {
        try Self.requireGroups(caller)
        let q = try ParsedQuery.parse(dictionary)
        let schema = q.schema!
        try Self.checkValueSize(q.valueData)
        if schema.isVirtual { throw .param("an identity is added as its certificate and its private key") }
        if !q.matchKeys.isEmpty || q.itemList != nil { throw .param("kSecMatch… keys are not allowed in SecItemAdd") }
        if q.persistentRef != nil { throw .param("kSecValuePersistentRef is not allowed in SecItemAdd") }
        if q.hasValueRef { throw .param("kSecValueRef is not supported for class '\(schema.code)'") }
        if q.useKeys[QueryKey.useItemList] != nil { throw .param("kSecUseItemList is not supported") }
        if q.useKeys[QueryKey.useAuthenticationUI] == .string(QueryKey.useAuthenticationUISkip) {
            throw .param("kSecUseAuthenticationUISkip is only allowed in SecItemCopyMatching")
        }

        var attributes = q.attributes
        let group = Attributes.accessGroup.code
        if let requested = attributes[group] {
            try Self.requireEntitled(requested, caller)
        } else {
            attributes[group] = .string(caller.defaultAccessGroup!)
        }
        if let interpreter = schema.interpreter, let data = q.valueData {
            try interpreter.apply(data, to: &attributes, schema: schema)
        }
        for attribute in schema.attributes {
            if attribute.flags.contains(.sharingGroup), attributes[attribute.code] != nil {
                throw .missingEntitlement("setting \(attribute.name) needs a sharing entitlement")
            }
            if attribute.flags.contains(.systemManaged) { attributes[attribute.code] = nil }
            if attribute.flags.contains(.materialized), attributes[attribute.code] == nil,
                let value = attribute.defaultValue
            {
                attributes[attribute.code] = value
            }
        }
        let accessibility =
            attributes[Attributes.accessible.code].flatMap { $0.stringValue }.flatMap(Accessibility.init)
            ?? schema.defaultAccessibility
        attributes[Attributes.accessible.code] = .string(accessibility.rawValue)
        let now = self.now()
        attributes[Attributes.creationDate.code] = .date(now)
        attributes[Attributes.modificationDate.code] = .date(now)
        var storedSecret = q.valueData
        if ApplicationPassword.protects(attributes) {
            let password = AuthenticationOptions(useKeys: q.useKeys, authenticationUI: q.authenticationUI)
                .applicationPassword
            guard password != nil else { throw ApplicationPassword.missing }
            storedSecret = try storedSecret.map { data throws(KeychainError) in
                try ApplicationPassword.seal(data, password: password)
            }
        }
        return PreparedItem(
            query: q, schema: schema, attributes: attributes, accessibility: accessibility, storedSecret: storedSecret)
    }
}
