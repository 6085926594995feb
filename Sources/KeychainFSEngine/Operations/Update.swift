import KeychainFSModel
import KeychainFSStore
import Foundation
import GRDB

extension Keychain {
    /// SecItemUpdate (docs/reference/keychain-semantics.md §4.3): every match is updated in one transaction; a primary-key change
    /// that collides is errSecDuplicateItem and nothing changes. Persistent references survive.
    ///
    /// `removing` (not in Apple's API; the filesystem's removexattr) clears attributes: primary-key and
    /// always-present attributes go back to their defaults, optional ones disappear.
    public func update(
        _ query: KeychainDictionary, _ attributesToUpdate: KeychainDictionary,
        removing: Set<String> = [], caller: Caller
    ) throws(KeychainError) {
        try reporting(.update, query, caller) { () throws(KeychainError) in
            try updating(query, attributesToUpdate, removing: removing, caller: caller)
        }
    }

    private func updating(
        _ query: KeychainDictionary, _ attributesToUpdate: KeychainDictionary,
        removing: Set<String>, caller: Caller
    ) throws(KeychainError) {
        try Self.requireGroups(caller)
        let q = try ParsedQuery.parse(query)
        let schema = q.schema!
        if q.hasReturnKeys { throw .param("kSecReturn… keys are not allowed in SecItemUpdate's query") }
        if schema.isVirtual { return try updateIdentities(q, attributesToUpdate, caller: caller) }
        if !q.matchKeys.isEmpty {
            throw .param("kSecMatch… keys (kSecMatchLimit included) are not allowed in SecItemUpdate")
        }
        if q.hasValueRef { throw .param("kSecValueRef is not supported for class '\(schema.code)'") }
        if q.useKeys[QueryKey.useItemList] != nil { throw .param("kSecUseItemList is not supported") }
        var (changes, newData) = try ParsedQuery.parseChanges(attributesToUpdate, schema: schema)
        try Self.checkValueSize(newData)
        if let group = changes[Attributes.accessGroup.code] { try Self.requireEntitled(group, caller) }
        changes[Attributes.modificationDate.code] = nil
        for code in removing {
            guard let attribute = schema.attribute(code) else { throw .noSuchAttr(code, in: schema.code) }
            if attribute.flags.contains(.systemManaged) {
                throw KeychainError(SecStatus.readOnly, "\(attribute.name) is set by the keychain")
            }
        }
        let filter = try filter(for: q, caller: caller)
        let options = AuthenticationOptions(useKeys: q.useKeys, authenticationUI: q.authenticationUI)
        let changesSecretOrProtection =
            newData != nil || changes[Attributes.accessControl.code] != nil
            || changes[Attributes.accessible.code] != nil

        // One pass opens the matching rows and, when none needs authorizing, writes them. A pass that meets
        // items whose new secret or protection needs authorizing writes nothing: they are authorized outside
        // the keybag's lock (a prompt waits for a person) and the next pass writes, unless it meets an
        // item not authorized yet (one that appeared meanwhile).
        var authorized = Set<Data>()
        var changed: [Data] = []
        // Whether any item's attributes changed (beyond its modification date): else only secrets did.
        var attributesChanged = false
        defer { noteChange(attributesChanged ? .items(changed: changed) : .secrets(changed: changed)) }
        for _ in 0..<8 {
            let unauthorized = try protection.withLock {
                keybag throws(KeychainError) -> [(uuid: Data, attributes: [String: KeychainValue])] in
                try store.write(crashPoint: "update.beforeCommit") { db in
                    let generation = self.generation
                    let rows = try ItemTable.select(db, schema, filter)
                    guard !rows.isEmpty else { throw KeychainError.notFound }
                    let olds = try rows.map { row throws(KeychainError) in
                        try openedEntry(row, schema: schema, generation: generation, keybag: keybag, keep: false)
                            .attributes
                    }
                    if changesSecretOrProtection {
                        let needing = zip(rows, olds).filter {
                            !authorized.contains($0.0.uuid) && Self.needsAuthorization($0.1)
                        }.map { (uuid: $0.0.uuid, attributes: $0.1) }
                        if !needing.isEmpty { return needing }
                    }
                    changed = rows.map { persistentReference($0, schema) }
                    for (row, old) in zip(rows, olds) {
                        let differ = try write(
                            row, old: old, changes: changes, removing: removing, newData: newData, schema: schema,
                            caller: caller, password: options.applicationPassword, keybag: keybag, db: db)
                        attributesChanged = attributesChanged || differ
                    }
                    return []
                }
            }
            if unauthorized.isEmpty { return }
            try authorizeUpdate(of: unauthorized.map(\.attributes), schema: schema, caller: caller, options: options)
            authorized.formUnion(unauthorized.map(\.uuid))
        }
        throw KeychainError(SecStatus.interactionNotAllowed, "the items kept changing while they were being authorized")
    }

    /// Writes one matched row: its attributes with `changes` and `removing`, its secret restated or replaced,
    /// sealed again. Returns whether an attribute other than the modification date now has other bytes (its
    /// lookup column changed: every attribute has one, so data a class derives attributes from counts too).
    private func write(
        _ row: StoredRow, old: [String: KeychainValue], changes: [String: KeychainValue], removing: Set<String>,
        newData: Data?, schema: ItemClassSchema, caller: Caller, password: Data?, keybag: Keybag, db: Database
    ) throws -> Bool {
        var attributes = old.merging(changes) { $1 }
        for code in removing {
            attributes[code] = Self.removedValue(schema.attribute(code)!, schema, caller)
        }
        let secret = try ApplicationPassword.restate(
            { () throws(KeychainError) in try openSecret(row, schema: schema, keybag: keybag) }, from: old,
            to: attributes, newData: newData, password: password)
        if let interpreter = schema.interpreter, let newData {
            try interpreter.apply(newData, to: &attributes, schema: schema)
        }
        attributes[Attributes.modificationDate.code] = .date(
            nextModificationDate(after: old[Attributes.modificationDate.code]))
        let accessibility =
            Accessibility(rawValue: attributes[Attributes.accessible.code]?.stringValue ?? "")
            ?? row.accessibility
        if accessibility == .whenPasscodeSetThisDeviceOnly, !keybag.record.hasPasscode {
            throw KeychainError(
                SecStatus.authFailed,
                "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly needs a device passcode")
        }
        let lookups = hasher.columns(for: attributes, schema: schema, updating: old, columns: row.lookups)
        let sealed = ItemSealer.seal(
            attributes: attributes, lookups: lookups, secret: secret, schema: schema, uuid: row.uuid,
            accessibility: accessibility, keys: try keybag.keys(for: accessibility))
        try ItemTable.update(
            db, schema,
            StoredRow(
                rowid: row.rowid, uuid: row.uuid, accessibility: accessibility, metadata: sealed.metadata,
                rowKey: sealed.rowKey, secret: sealed.secret, lookups: lookups),
            from: row)
        return zip(schema.attributes, zip(lookups, row.lookups)).contains { attribute, columns in
            attribute.code != Attributes.modificationDate.code && columns.0 != columns.1
        }
    }

    /// What an attribute becomes when removed: its default if items always carry it, otherwise nothing.
    static func removedValue(_ attribute: AttributeDescriptor, _ schema: ItemClassSchema, _ caller: Caller)
        -> KeychainValue?
    {
        if attribute.code == Attributes.accessible.code { return .string(schema.defaultAccessibility.rawValue) }
        if attribute.code == Attributes.accessGroup.code { return caller.defaultAccessGroup.map(KeychainValue.string) }
        return attribute.flags.contains(.materialized) ? attribute.defaultValue : nil
    }

    /// mdat strictly increases: now, or 1 ms after the old value if the clock has not moved past it.
    func nextModificationDate(after old: KeychainValue?) -> Date {
        let now = self.now()
        guard case .date(let previous) = old, now <= previous else { return now }
        return previous.addingTimeInterval(0.001)
    }
}
