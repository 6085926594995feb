import KeychainFSModel
import KeychainFSStore
import Foundation
import GRDB

/// Finding rows for a query and opening them: the part CopyMatching, Update and Delete share.
extension Keychain {
    /// The SQL filter for a parsed query: every given attribute, the caller's access groups, and the
    /// implicit sync = 0 unless kSecAttrSynchronizable was given or the query is by persistent reference.
    func filter(for q: ParsedQuery, caller: Caller) throws(KeychainError) -> ItemTable.Filter {
        var filter = ItemTable.Filter()
        for (code, value) in q.filters { filter.equals.append((code, [hasher.hash(code, value)])) }
        let group = Attributes.accessGroup.code
        if let requested = q.attributes[group] {
            try Self.requireEntitled(requested, caller)
        } else {
            filter.equals.append((group, caller.accessGroups.map { hasher.hash(group, .string($0)) }))
        }
        if let ref = q.persistentRef {
            switch ref.target {
            case .uuid(let uuid): filter.uuid = uuid
            case .rowid(let rowid): filter.rowid = rowid
            }
        } else if !q.synchronizableSpecified {
            filter.equals.append((Attributes.synchronizable.code, [hasher.hash(Attributes.synchronizable.code, 0)]))
        }
        if let items = q.itemList?.filter({ $0.classCode == q.schema?.code }) {
            filter.oneOf = (
                items.compactMap { if case .uuid(let u) = $0.target { u } else { nil } },
                items.compactMap { if case .rowid(let r) = $0.target { r } else { nil } }
            )
        }
        return filter
    }

    /// Decrypts a row's attributes with its class's metadata key (errSecInteractionNotAllowed while the
    /// class is unavailable). The box authenticates the row's lookup columns too, so a row whose columns
    /// were tampered with or swapped is errSecDecode rather than a wrong answer.
    package func openAttributes(_ row: StoredRow, schema: ItemClassSchema, keybag: Keybag) throws(KeychainError)
        -> [String: KeychainValue]
    {
        let keys = try keybag.keys(for: row.accessibility)
        let attributes = try ItemSealer.openAttributes(
            row, schema: schema, metadataKey: keys.metadataKey,
            acceptingUnshaped: store.unshapedRowsMayRemain.load(ordering: .acquiring))
        guard attributes[Attributes.accessible.code] == .string(row.accessibility.rawValue) else {
            throw KeychainError(
                SecStatus.decode,
                "item \(row.rowid) of class '\(schema.code)' does not match its protection class: the vault was modified"
            )
        }
        return attributes
    }

    /// The row cache's entry for `uuid`, if the caller's access groups reach it; its class must be
    /// available right now (the lock is never cached). Nil on a miss: the caller asks SQL.
    func cachedEntry(_ uuid: Data, generation: UInt64, caller: Caller, keybag: Keybag) throws(KeychainError) -> RowCache
        .Entry?
    {
        guard let entry = rows.entry(uuid, generation: generation), Self.reaches(caller, entry) else { return nil }
        _ = try keybag.keys(for: entry.row.accessibility)
        return entry
    }

    /// Whether the caller's access groups hold the item: what a query by persistent reference filters on.
    private static func reaches(_ caller: Caller, _ entry: RowCache.Entry) -> Bool {
        guard let group = entry.attributes[Attributes.accessGroup.code]?.stringValue else { return false }
        return caller.accessGroups.contains(group)
    }

    /// The row of `uuid` read by SQL, opened and kept in the row cache, when the caller's groups hold it
    /// (as ``cachedEntry(_:generation:caller:keybag:)`` asks): the row cache's miss, without a query dictionary.
    func loadedEntry(_ uuid: Data, schema: ItemClassSchema, generation: UInt64, caller: Caller, keybag: Keybag)
        throws(KeychainError) -> RowCache.Entry?
    {
        let found = try store.read { db in try ItemTable.select(db, schema, ItemTable.Filter(uuid: uuid), limit: 1) }
        guard let row = found.first else { return nil }
        let entry = try openedEntry(row, schema: schema, generation: generation, keybag: keybag, keep: true)
        return Self.reaches(caller, entry) ? entry : nil
    }

    /// A row SQL found, opened: its attributes come from the row cache when the cache holds this very row
    /// under `generation` (``RowCache/Entry/reopened(as:)``: what decrypting it again would give), so a
    /// lookup of a hot item decrypts only its secret; otherwise they are decrypted, and kept if `keep`. The
    /// class must be available right now either way.
    func openedEntry(_ row: StoredRow, schema: ItemClassSchema, generation: UInt64, keybag: Keybag, keep: Bool)
        throws(KeychainError) -> RowCache.Entry
    {
        if let entry = rows.entry(row.uuid, generation: generation)?.reopened(as: row) {
            _ = try keybag.keys(for: row.accessibility)
            return entry
        }
        let entry = RowCache.Entry(
            row: row, attributes: try openAttributes(row, schema: schema, keybag: keybag), forCache: keep)
        if keep { rows.store(entry, generation: generation) }
        return entry
    }

    package func openSecret(_ row: StoredRow, schema: ItemClassSchema, keybag: Keybag) throws(KeychainError) -> Data? {
        try ItemSealer.openSecret(row, classCode: schema.code, keys: try keybag.keys(for: row.accessibility))
    }

    /// The secret as its reader gets it: for an item with an application password, opened with the
    /// caller's (``openSecret(_:schema:keybag:)`` returns what is stored, for copies that keep it sealed).
    func revealSecret(
        _ row: StoredRow, attributes: [String: KeychainValue], schema: ItemClassSchema, keybag: Keybag,
        options: AuthenticationOptions
    ) throws(KeychainError) -> Data? {
        guard let stored = try openSecret(row, schema: schema, keybag: keybag) else { return nil }
        return ApplicationPassword.protects(attributes)
            ? try ApplicationPassword.open(stored, password: options.applicationPassword) : stored
    }

    func persistentReference(_ row: StoredRow, _ schema: ItemClassSchema) -> Data {
        persistentReference(uuid: row.uuid, schema)
    }

    func persistentReference(uuid: Data, _ schema: ItemClassSchema) -> Data {
        PersistentReference(classCode: schema.code, uuid: uuid).data
    }
}
