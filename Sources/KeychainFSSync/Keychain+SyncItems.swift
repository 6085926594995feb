import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Crypto
import Foundation
import GRDB
import KeychainFSSodium

/// A synchronizable row of this vault, as the exporter sees it.
package struct LocalSyncItem: Sendable {
    /// The row's UUID (what the exporter remembers an item by).
    package let uuid: Data
    /// Changes whenever the row is rewritten: an item whose fingerprint is unchanged needs no export.
    package let fingerprint: Data
    /// The item, or nil while its class is locked (it waits for the next sync).
    package let record: SyncRecord?
}

/// What the engine contributes to sync: reading the synchronizable items, applying incoming ones through
/// the same uniqueness and protection rules as SecItemAdd/Update, and merging two versions of a file.
extension Keychain {
    /// Whether items of `accessibility` may leave this device (ThisDeviceOnly ones never do).
    package static func mayLeaveDevice(_ accessibility: Accessibility) -> Bool {
        !accessibility.rawValue.hasSuffix("u")
    }

    /// Every row with sync = 1 whose protection class may leave the device. Items of a Secure Enclave
    /// (kSecAttrTokenID set) are left out; so are items whose class is locked, reported with no record.
    package func synchronizableItems() throws(KeychainError) -> [LocalSyncItem] {
        try protection.withLock { keybag throws(KeychainError) -> [LocalSyncItem] in
            var items: [LocalSyncItem] = []
            for schema in Schema.storedClasses {
                var filter = ItemTable.Filter()
                filter.equals = [
                    (Attributes.synchronizable.code, [hasher.hash(Attributes.synchronizable.code, .number(1))])
                ]
                let rows = try store.read { db in try ItemTable.select(db, schema, filter) }
                for row in rows where Self.mayLeaveDevice(row.accessibility) {
                    guard keybag.state.allows(row.accessibility) else {
                        items.append(LocalSyncItem(uuid: row.uuid, fingerprint: Self.fingerprint(row), record: nil))
                        continue
                    }
                    let attributes = try openAttributes(row, schema: schema, keybag: keybag)
                    if let token = attributes[Attributes.tokenID.code]?.stringValue, !token.isEmpty { continue }
                    let record = SyncRecord(
                        classCode: schema.code, attributes: attributes,
                        secret: try openSecret(row, schema: schema, keybag: keybag), deleted: false)
                    items.append(LocalSyncItem(uuid: row.uuid, fingerprint: Self.fingerprint(row), record: record))
                }
            }
            return items
        }
    }

    /// The UUIDs of every synchronizable row, locked or not (a deletion is a UUID that is gone).
    package func synchronizableUUIDs() throws(KeychainError) -> Set<Data> {
        var uuids = Set<Data>()
        for schema in Schema.storedClasses {
            var filter = ItemTable.Filter()
            filter.equals = [
                (Attributes.synchronizable.code, [hasher.hash(Attributes.synchronizable.code, .number(1))])
            ]
            for row in try store.read({ db in try ItemTable.select(db, schema, filter) }) { uuids.insert(row.uuid) }
        }
        return uuids
    }

    /// Applies an incoming record by Apple's rule against the local item with the same primary key: the
    /// newer mdat wins (a tie: the smaller digest). Returns the local row afterwards (nil: none). Records
    /// that may not be synchronized are errSecParam; a locked class is errSecInteractionNotAllowed.
    package func applySyncRecord(_ record: SyncRecord) throws(KeychainError) -> LocalSyncItem? {
        guard let schema = Schema.schema(for: record.classCode), !schema.isVirtual else {
            throw .param("unknown item class in a sync record")
        }
        var attributes = record.attributes
        guard let raw = attributes[Attributes.accessible.code]?.stringValue,
            let accessibility = Accessibility(rawValue: raw),
            Self.mayLeaveDevice(accessibility), attributes[Attributes.synchronizable.code]?.numberValue == 1,
            (attributes[Attributes.tokenID.code]?.stringValue ?? "").isEmpty
        else {
            throw .param("a sync record that is not a synchronizable item (ThisDeviceOnly, sync = 0 or a token key)")
        }
        for attribute in schema.attributes
        where attribute.flags.contains(.materialized) && attributes[attribute.code] == nil {
            attributes[attribute.code] = attribute.defaultValue
        }
        var changed = false
        defer { if changed { noteChange(.items(changed: nil)) } }
        return try protection.withLock { keybag throws(KeychainError) -> LocalSyncItem? in
            var filter = ItemTable.Filter()
            filter.equals = schema.primaryKey.map { a in
                (a.code, [hasher.hash(a.code, attributes[a.code] ?? a.defaultValue ?? .string(""))])
            }
            return try store.write { db throws -> LocalSyncItem? in
                let existing = try ItemTable.select(db, schema, filter).first
                if let existing {
                    let old = SyncRecord(
                        classCode: schema.code,
                        attributes: try openAttributes(existing, schema: schema, keybag: keybag),
                        secret: try openSecret(existing, schema: schema, keybag: keybag), deleted: false)
                    if old == record || SyncMergeRule.winner(old, record) == old {
                        return LocalSyncItem(uuid: existing.uuid, fingerprint: Self.fingerprint(existing), record: old)
                    }
                    changed = true
                    if record.deleted {
                        try ItemTable.delete(db, schema, rowids: [existing.rowid])
                        return nil
                    }
                    let row = try seal(
                        attributes, record.secret, schema, existing.uuid, accessibility, keybag, rowid: existing.rowid)
                    try ItemTable.update(db, schema, row)
                    return LocalSyncItem(uuid: row.uuid, fingerprint: Self.fingerprint(row), record: record)
                }
                if record.deleted { return nil }
                changed = true
                var row = try seal(
                    attributes, record.secret, schema, Sodium.randomBytes(16), accessibility, keybag, rowid: 0)
                row.rowid = try ItemTable.insert(db, schema, row)
                return LocalSyncItem(uuid: row.uuid, fingerprint: Self.fingerprint(row), record: record)
            }
        }
    }

    private func seal(
        _ attributes: [String: KeychainValue], _ secret: Data?, _ schema: ItemClassSchema, _ uuid: Data,
        _ accessibility: Accessibility, _ keybag: Keybag, rowid: Int64
    ) throws(KeychainError) -> StoredRow {
        let lookups = hasher.columns(for: attributes, schema: schema)
        let sealed = ItemSealer.seal(
            attributes: attributes, lookups: lookups, secret: secret, schema: schema, uuid: uuid,
            accessibility: accessibility, keys: try keybag.keys(for: accessibility))
        return StoredRow(
            rowid: rowid, uuid: uuid, accessibility: accessibility, metadata: sealed.metadata,
            rowKey: sealed.rowKey, secret: sealed.secret, lookups: lookups)
    }

    package static func fingerprint(_ row: StoredRow) -> Data {
        var hash = SHA256()
        hash.update(data: row.metadata)
        hash.update(data: row.rowKey)
        hash.update(data: row.secret ?? Data())
        return Data(hash.finalize())
    }

    /// The git merge driver's work: the winner of two versions of the item file `name` (the base is not
    /// needed: the rule compares the two sides). A side that is refused (not signed by a member, a bad
    /// signature, an unknown epoch) loses; both refused is errSecDecode: the merge stops.
    package func mergeSyncFiles(name: String, ours: Data, theirs: Data) throws(KeychainError) -> Data {
        try withCircleKeys { circle throws(KeychainError) -> Data in
            let a = try? circle.open(ours, name: name).record
            let b = try? circle.open(theirs, name: name).record
            switch (a, b) {
            case (let a?, let b?): return SyncMergeRule.winner(a, b) == a ? ours : theirs
            case (_?, nil): return ours
            case (nil, _?): return theirs
            case (nil, nil):
                throw KeychainError(
                    SecStatus.decode, "cannot merge \(name): neither version is a record this vault accepts")
            }
        }
    }
}
