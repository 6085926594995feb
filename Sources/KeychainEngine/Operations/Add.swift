import KeychainModel
import KeychainStore
import Foundation
import SodiumCrypto

extension Keychain {
    /// SecItemAdd (docs/reference/keychain-semantics.md §4.1). Returns what the `r_…` keys ask for, or nil.
    public func add(_ dictionary: KeychainDictionary, caller: Caller) throws(KeychainError) -> KeychainValue? {
        try reporting(.add, dictionary, caller) { () throws(KeychainError) in try adding(dictionary, caller: caller) }
    }

    private func adding(_ dictionary: KeychainDictionary, caller: Caller) throws(KeychainError) -> KeychainValue? {
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
        if let requested = attributes[group] { try Self.requireEntitled(requested, caller) } else {
            attributes[group] = .string(caller.defaultAccessGroup!)
        }
        if let interpreter = schema.interpreter, let data = q.valueData { try interpreter.apply(data, to: &attributes, schema: schema) }
        for attribute in schema.attributes {
            if attribute.flags.contains(.sharingGroup), attributes[attribute.code] != nil {
                throw .missingEntitlement("setting \(attribute.name) needs a sharing entitlement")
            }
            if attribute.flags.contains(.systemManaged) { attributes[attribute.code] = nil }
            if attribute.flags.contains(.materialized), attributes[attribute.code] == nil, let value = attribute.defaultValue {
                attributes[attribute.code] = value
            }
        }
        let accessibility = attributes[Attributes.accessible.code].flatMap { $0.stringValue }.flatMap(Accessibility.init) ?? schema.defaultAccessibility
        attributes[Attributes.accessible.code] = .string(accessibility.rawValue)
        let now = self.now()
        attributes[Attributes.creationDate.code] = .date(now)
        attributes[Attributes.modificationDate.code] = .date(now)
        var storedSecret = q.valueData
        if ApplicationPassword.protects(attributes) {
            let password = AuthenticationOptions(useKeys: q.useKeys, authenticationUI: q.authenticationUI).applicationPassword
            guard password != nil else { throw ApplicationPassword.missing }
            storedSecret = try storedSecret.map { data throws(KeychainError) in try ApplicationPassword.seal(data, password: password) }
        }

        return try protection.withLock { keybag throws(KeychainError) -> KeychainValue? in
            // As Apple's securityd: s3dl_query_add (ItemDb.c) fails "pdmn=akpu but passcode is not set"
            // with errSecAuthFailed. The iOS simulator, which has no passcode, adds such items anyway.
            if accessibility == .whenPasscodeSetThisDeviceOnly, !keybag.record.hasPasscode {
                throw KeychainError(SecStatus.authFailed, "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly needs a device passcode")
            }
            let keys = try keybag.keys(for: accessibility)
            let uuid = Sodium.randomBytes(16)
            let lookups = hasher.columns(for: attributes, schema: schema)
            let sealed = ItemSealer.seal(attributes: attributes, lookups: lookups, secret: storedSecret, schema: schema, uuid: uuid,
                                         accessibility: accessibility, keys: keys)
            let row = StoredRow(rowid: 0, uuid: uuid, accessibility: accessibility, metadata: sealed.metadata,
                                rowKey: sealed.rowKey, secret: sealed.secret, lookups: lookups)
            _ = try store.write { db in try ItemTable.insert(db, schema, row) }
            noteChange(.items(changed: []))
            let persistentRef = persistentReference(row, schema)
            let reference = q.returnsRef && Schema.classesWithRefObjects.contains(schema.code)
                ? ResultBuilder.referenceDescription(schema.code, attributes: attributes, persistentRef: persistentRef, secret: q.valueData) : nil
            return try ResultBuilder(query: q, schema: schema, forAdd: true)
                .value(attributes: attributes, persistentRef: persistentRef, reference: reference) { q.valueData }
        }
    }
}
