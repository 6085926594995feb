import KeychainFSModel
import KeychainFSStore
import Foundation
import GRDB
import KeychainFSSodium

/// What a restore did.
public struct RestoreOutcome: Sendable, Equatable {
    /// Items added.
    public var added = 0
    /// Items that replaced an older one with the same primary key (`--merge`).
    public var replaced = 0
    /// Items kept because the vault's copy was as new or newer (`--merge`).
    public var kept = 0

    public init(added: Int = 0, replaced: Int = 0, kept: Int = 0) {
        self.added = added
        self.replaced = replaced
        self.kept = kept
    }
}

extension Accessibility {
    /// ThisDeviceOnly classes (akpu included): never in a backup.
    public var isThisDeviceOnly: Bool {
        [
            .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .alwaysThisDeviceOnly,
            .whenPasscodeSetThisDeviceOnly,
        ].contains(self)
    }
}

extension Keychain {
    /// The largest backup file: one is made and restored whole in memory, and a restore sends it to the daemon.
    public static let maxBackupBytes = 64 << 20

    /// `keychainfs backup`: every item but the ThisDeviceOnly ones and token (Secure Enclave) keys, sealed
    /// under `password`. Needs every migratable class available (the device unlocked), or errSecInteractionNotAllowed.
    public func backup(password: Data) throws(KeychainError) -> (archive: Data, items: Int) {
        let (items, hardness) = try protection.withLock {
            keybag throws(KeychainError) -> ([BackupArchive.Item], PasscodeHardness) in
            let items = try store.read { db -> [BackupArchive.Item] in
                var items: [BackupArchive.Item] = []
                for schema in Schema.storedClasses {
                    for row in try ItemTable.select(db, schema, ItemTable.Filter())
                    where !row.accessibility.isThisDeviceOnly {
                        let keys = try keybag.keys(for: row.accessibility)
                        let attributes = try openAttributes(row, schema: schema, keybag: keybag)
                        if let token = attributes[Attributes.tokenID.code], token != .string("") { continue }
                        let secret = try ItemSealer.openSecret(row, classCode: schema.code, keys: keys)
                        items.append(
                            BackupArchive.Item(
                                classCode: schema.code, uuid: row.uuid, attributes: attributes, secret: secret))
                    }
                }
                return items
            }
            return (items, keybag.record.testDevice ? .interactive : .moderate)
        }
        var plaintext = items
        defer { for i in plaintext.indices { if plaintext[i].secret != nil { Sodium.wipe(&plaintext[i].secret!) } } }
        let archive = try BackupArchive.seal(plaintext, password: password, hardness: hardness)
        guard archive.count <= Self.maxBackupBytes else {
            throw KeychainError(
                SecStatus.param,
                "the backup would be \(archive.count) bytes; a backup holds at most \(Self.maxBackupBytes) bytes")
        }
        return (archive, items.count)
    }

    /// `keychainfs restore`: into an empty vault, or with `merge`, item by item where the newer
    /// modification date wins. All of it in one transaction: a failure restores nothing.
    public func restore(_ archive: Data, password: Data, merge: Bool) throws(KeychainError) -> RestoreOutcome {
        var items = try BackupArchive.open(archive, password: password)
        defer { for i in items.indices { if items[i].secret != nil { Sodium.wipe(&items[i].secret!) } } }
        if !merge, try itemCounts().values.contains(where: { $0 > 0 }) {
            throw KeychainError(
                SecStatus.duplicateItem,
                "the vault is not empty: restore into an empty vault, or merge with --merge (the newer item wins)")
        }
        let outcome = try protection.withLock { keybag throws(KeychainError) -> RestoreOutcome in
            try store.write { db -> RestoreOutcome in
                var outcome = RestoreOutcome()
                for item in items { try restoreItem(item, db: db, keybag: keybag, outcome: &outcome) }
                return outcome
            }
        }
        noteChange()
        return outcome
    }

    private func restoreItem(_ item: BackupArchive.Item, db: Database, keybag: Keybag, outcome: inout RestoreOutcome)
        throws
    {
        guard let schema = Schema.schema(for: item.classCode), !schema.isVirtual,
            let accessibility = item.attributes[Attributes.accessible.code]?.stringValue.flatMap(Accessibility.init)
        else {
            throw KeychainError(SecStatus.decode, "the backup holds an item of an unknown class or protection class")
        }
        let keys = try keybag.keys(for: accessibility)
        let lookups = hasher.columns(for: item.attributes, schema: schema)
        var filter = ItemTable.Filter()
        for (index, attribute) in schema.attributes.enumerated() where attribute.isPrimaryKey {
            if let hash = lookups[index] { filter.equals.append((attribute.code, [hash])) }
        }
        var row = StoredRow(
            rowid: 0, uuid: item.uuid, accessibility: accessibility, metadata: Data(), rowKey: Data(), secret: nil,
            lookups: lookups)
        if let existing = try ItemTable.select(db, schema, filter).first {
            let current = try openAttributes(existing, schema: schema, keybag: keybag)
            let mdat = Attributes.modificationDate.code
            guard let incoming = Self.date(item.attributes[mdat]), incoming > (Self.date(current[mdat]) ?? .distantPast)
            else {
                outcome.kept += 1
                return
            }
            row.rowid = existing.rowid
            row.uuid = existing.uuid
            seal(&row, item, schema, keys)
            try ItemTable.update(db, schema, row)
            outcome.replaced += 1
            return
        }
        // The item keeps its UUID (so persistent references survive) unless this vault already uses it.
        if try !ItemTable.select(db, schema, ItemTable.Filter(uuid: item.uuid)).isEmpty {
            row.uuid = Sodium.randomBytes(16)
        }
        seal(&row, item, schema, keys)
        _ = try ItemTable.insert(db, schema, row)
        outcome.added += 1
    }

    private static func date(_ value: KeychainValue?) -> Date? {
        if case .date(let date)? = value { date } else { nil }
    }

    private func seal(
        _ row: inout StoredRow, _ item: BackupArchive.Item, _ schema: ItemClassSchema, _ keys: ItemSealer.Keys
    ) {
        let sealed = ItemSealer.seal(
            attributes: item.attributes, lookups: row.lookups, secret: item.secret, schema: schema, uuid: row.uuid,
            accessibility: row.accessibility, keys: keys)
        row.metadata = sealed.metadata
        row.rowKey = sealed.rowKey
        row.secret = sealed.secret
    }
}
