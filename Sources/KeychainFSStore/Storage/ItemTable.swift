import KeychainFSModel
import Foundation
import GRDB
import Synchronization

/// The SQL of one class table, generated from its schema: a lookup column `h_<code>` per attribute,
/// NOT NULL and UNIQUE together for the primary key, indexes for the indexed attributes.
package enum ItemTable {
    package static func column(_ code: String) -> String { "h_\(code)" }

    /// The primary-key naming attributes, which lead the UNIQUE index.
    package static func uniqueLeadingColumns(_ schema: ItemClassSchema) -> [String] {
        [schema.namingAttributes.item, schema.namingAttributes.group].filter(\.isPrimaryKey).map(\.code)
    }

    package static func createStatements(_ schema: ItemClassSchema) -> [String] {
        let lookups = schema.attributes.map { "\(column($0.code)) BLOB\($0.isPrimaryKey ? " NOT NULL" : "")" }
        // Most selective first (the naming attributes, as Apple orders acct, svce, …), so the UNIQUE
        // index serves lookups by name.
        let leading = uniqueLeadingColumns(schema)
        let unique = (leading + schema.primaryKey.map(\.code).filter { !leading.contains($0) }).map(column).joined(
            separator: ", ")
        var statements = [
            """
            CREATE TABLE IF NOT EXISTS \(schema.code) (
              rowid INTEGER PRIMARY KEY AUTOINCREMENT,
              uuid BLOB NOT NULL UNIQUE,
              keyclass INTEGER NOT NULL,
              metadata BLOB NOT NULL,
              rowkey BLOB NOT NULL,
              secret BLOB,
              \(lookups.joined(separator: ",\n  ")),
              UNIQUE(\(unique)))
            """
        ]
        // The UNIQUE index already serves its leading column: a second index would only slow every insert.
        for attribute in schema.attributes where attribute.flags.contains(.indexed) && attribute.code != leading.first {
            statements.append(
                "CREATE INDEX IF NOT EXISTS \(schema.code)_\(attribute.code) ON \(schema.code)(\(column(attribute.code)))"
            )
        }
        return statements
    }

    /// A row filter: each lookup column must equal one of its hashes.
    package struct Filter {
        package var equals: [(code: String, oneOf: [Data])] = []
        package var uuid: Data?
        package var rowid: Int64?
        /// Rows after this one only (a listing read in chunks).
        package var rowidAbove: Int64?
        package var accessibility: Accessibility?
        /// kSecMatchItemList: the row must be one of these (persistent references' UUIDs, legacy rowids).
        package var oneOf: (uuids: [Data], rowids: [Int64])?

        package init(
            equals: [(code: String, oneOf: [Data])] = [], uuid: Data? = nil, rowid: Int64? = nil,
            rowidAbove: Int64? = nil,
            accessibility: Accessibility? = nil, oneOf: (uuids: [Data], rowids: [Int64])? = nil
        ) {
            self.equals = equals; self.uuid = uuid; self.rowid = rowid; self.rowidAbove = rowidAbove
            self.accessibility = accessibility; self.oneOf = oneOf
        }

        /// ``equals`` in the order of their codes: a query's attributes come from a dictionary, whose order
        /// differs between two dictionaries of the same keys, and one query must be one SQL text and one key.
        package var equalsByCode: [(code: String, oneOf: [Data])] {
            equals.count > 1 ? equals.sorted { $0.code < $1.code } : equals
        }

        /// Whether only lookup columns filter: no row is named (by UUID, rowid, item list or listing chunk)
        /// and no protection class chosen.
        package var isByLookupsAlone: Bool {
            uuid == nil && rowid == nil && rowidAbove == nil && accessibility == nil && oneOf == nil
        }
    }

    package static func select(_ db: Database, _ schema: ItemClassSchema, _ filter: Filter, limit: Int? = nil) throws
        -> [StoredRow]
    {
        var rows: [StoredRow] = []
        try forEach(db, schema, filter, limit: limit) { rows.append($0) }
        return rows
    }

    /// The rows `filter` matches, in rowid order, one at a time (a listing of every item never holds them all).
    package static func forEach(
        _ db: Database, _ schema: ItemClassSchema, _ filter: Filter, limit: Int? = nil,
        _ body: (StoredRow) throws -> Void
    ) throws {
        try selecting(db, schema, filter, limit: limit) { statement, shape in
            // Each row is decoded straight from the statement, by column index, as it is stepped.
            guard shape.byName else {
                while try statement.step() { try body(try decode(statement, schema)) }
                return
            }
            // A query by name matches a row or two, which SQLite would put in a temporary b-tree to order
            // them (a twentieth of a lookup): they are ordered here instead, and a row past the limit is
            // never opened, as SQLite's LIMIT would not have returned it.
            var found: [(rowid: Int64, row: Result<StoredRow, any Error>)] = []
            while try statement.step() {
                found.append((statement.int64(0), Result { try decode(statement, schema) }))
            }
            found.sort { $0.rowid < $1.rowid }
            for match in found.prefix(shape.limit ?? found.count) { try body(try match.row.get()) }
        }
    }

    package static func insert(_ db: Database, _ schema: ItemClassSchema, _ row: StoredRow) throws -> Int64 {
        var statement = BoundStatement(try db.cachedStatement(sql: writeStatements(schema).insert), in: db)
        bindValues(&statement, row)
        try statement.execute()
        return db.lastInsertedRowID
    }

    package static func update(_ db: Database, _ schema: ItemClassSchema, _ row: StoredRow) throws {
        var statement = BoundStatement(try db.cachedStatement(sql: writeStatements(schema).update), in: db)
        bindValues(&statement, row)
        statement.bind(row.rowid)
        try statement.execute()
    }

    /// Rewrites a row whose UUID stays, setting only the lookup columns that differ from `old`'s: SQLite
    /// updates an index only when its columns are set, so an update of a value (its sealed boxes and its
    /// `mdat` column) leaves the UNIQUE and search indexes alone (measured: they were rewritten on every
    /// write of a value).
    package static func update(_ db: Database, _ schema: ItemClassSchema, _ row: StoredRow, from old: StoredRow)
        throws
    {
        guard old.uuid == row.uuid, old.lookups.count == row.lookups.count else {
            return try update(db, schema, row)
        }
        let changed = zip(row.lookups, old.lookups).map { $0 != $1 }
        var statement = BoundStatement(try db.cachedStatement(sql: updateSQL(schema, changing: changed)), in: db)
        bindSealed(&statement, row)
        for (lookup, isChanged) in zip(row.lookups, changed) where isChanged { statement.bind(lookup) }
        statement.bind(row.rowid)
        try statement.execute()
    }

    /// Deletes the rows `filter` matches and returns their UUIDs. Only their rowids and UUIDs are read (a
    /// select of whole rows decoded 42 columns a row to delete it); SQLite's `DELETE … RETURNING`
    /// was measured and costs more than this select and delete together.
    package static func delete(_ db: Database, _ schema: ItemClassSchema, matching filter: Filter) throws -> [Data] {
        let found = try selecting(db, schema, filter, limit: nil, keysOnly: true) { statement, _ in
            var found: [(rowid: Int64, uuid: Data)] = []
            while try statement.step() {
                guard let uuid = statement.data(1) else { throw missingColumn }
                found.append((statement.int64(0), uuid))
            }
            return found
        }
        try delete(db, schema, rowids: found.map(\.rowid))
        return found.map(\.uuid)
    }

    /// The select of the rows `filter` matches, its values bound: one SQL text per query shape
    /// (``Filter/equalsByCode``), so the statement cache stays small.
    private static func selecting<Answer>(
        _ db: Database, _ schema: ItemClassSchema, _ filter: Filter, limit: Int?, keysOnly: Bool = false,
        _ body: (inout BoundStatement, SelectShape) throws -> Answer
    ) throws -> Answer {
        let equals = filter.equalsByCode
        let shape = SelectShape(schema, equals: equals, filter, limit: limit, keysOnly: keysOnly)
        var statement = BoundStatement(try db.cachedStatement(sql: selectSQL(shape, schema)), in: db)
        bind(filter, equals, to: &statement)
        return try body(&statement, shape)
    }

    /// A row without a column every row has.
    private static let missingColumn = KeychainError(
        SecStatus.decode, "row lacks a column every row has: the vault was modified")

    /// Binds `filter`'s values in the order ``buildSelectSQL(_:_:)`` names them.
    private static func bind(
        _ filter: Filter, _ equals: [(code: String, oneOf: [Data])], to statement: inout BoundStatement
    ) {
        for (_, hashes) in equals { for hash in hashes { statement.bind(hash) } }
        if let uuid = filter.uuid { statement.bind(uuid) }
        if let rowid = filter.rowid { statement.bind(rowid) }
        if let above = filter.rowidAbove { statement.bind(above) }
        if let a = filter.accessibility { statement.bind(Int64(a.storageIndex)) }
        if let items = filter.oneOf {
            for uuid in items.uuids { statement.bind(uuid) }
            for rowid in items.rowids { statement.bind(rowid) }
        }
    }

    /// One prepared statement per class, run per row: a statement with the rowids written into its text
    /// was compiled afresh on every call (a delete's largest cost after the lookup).
    package static func delete(_ db: Database, _ schema: ItemClassSchema, rowids: [Int64]) throws {
        let cached = try db.cachedStatement(sql: writeStatements(schema).delete)
        for rowid in rowids {
            var statement = BoundStatement(cached, in: db)
            statement.bind(rowid)
            try statement.execute()
        }
    }

    /// The stored columns in the order of ``storedColumnNames(_:)``.
    private static func bindValues(_ statement: inout BoundStatement, _ row: StoredRow) {
        statement.bind(row.uuid)
        bindSealed(&statement, row)
        for lookup in row.lookups { statement.bind(lookup) }
    }

    /// The columns every write of a row sets, whatever else changed: its protection class and sealed boxes.
    private static let sealedColumns = ["keyclass", "metadata", "rowkey", "secret"]

    /// ``sealedColumns``, in their order.
    private static func bindSealed(_ statement: inout BoundStatement, _ row: StoredRow) {
        statement.bind(Int64(row.accessibility.storageIndex))
        statement.bind(row.metadata)
        statement.bind(row.rowKey)
        statement.bind(row.secret)
    }

    private static func storedColumnNames(_ schema: ItemClassSchema) -> [String] {
        ["uuid"] + sealedColumns + schema.attributes.map { column($0.code) }
    }

    /// The INSERT, UPDATE and DELETE of each stored class, built once.
    private static let writeSQL: [String: (insert: String, update: String, delete: String)] = Dictionary(
        uniqueKeysWithValues: Schema.storedClasses.map { ($0.code, buildWriteStatements($0)) })

    private static func writeStatements(_ schema: ItemClassSchema) -> (insert: String, update: String, delete: String) {
        writeSQL[schema.code] ?? buildWriteStatements(schema)
    }

    private static func buildWriteStatements(_ schema: ItemClassSchema) -> (
        insert: String, update: String, delete: String
    ) {
        let names = storedColumnNames(schema)
        let placeholders = Array(repeating: "?", count: names.count).joined(separator: ",")
        return (
            insert: "INSERT INTO \(schema.code) (\(names.joined(separator: ","))) VALUES (\(placeholders))",
            update: "UPDATE \(schema.code) SET \(names.map { "\($0) = ?" }.joined(separator: ",")) WHERE rowid = ?",
            delete: "DELETE FROM \(schema.code) WHERE rowid = ?"
        )
    }

    /// The UPDATE texts of ``update(_:_:_:from:)`` built so far, by class and changed lookup columns; bounded
    /// as ``selectTexts``.
    private static let updateTexts = Mutex<[UpdateShape: String]>([:])
    private struct UpdateShape: Hashable {
        let table: String
        let changed: [Bool]
    }

    private static func updateSQL(_ schema: ItemClassSchema, changing changed: [Bool]) -> String {
        let shape = UpdateShape(table: schema.code, changed: changed)
        if let sql = updateTexts.withLock({ $0[shape] }) { return sql }
        let lookups = zip(schema.attributes, changed).filter(\.1).map { column($0.0.code) }
        let assignments = (sealedColumns + lookups).map { "\($0) = ?" }
        let sql = "UPDATE \(schema.code) SET \(assignments.joined(separator: ",")) WHERE rowid = ?"
        updateTexts.withLock { texts in if texts.count < selectTextsBound { texts[shape] = sql } }
        return sql
    }

    /// What a select's SQL text depends on, so that the text is built once per shape.
    private struct SelectShape: Hashable {
        struct Lookup: Hashable {
            let code: String
            let count: Int
        }
        let table: String
        let equals: [Lookup]
        let uuid: Bool, rowid: Bool, rowidAbove: Bool, keyclass: Bool
        let oneOf: [Int]?
        let limit: Int?
        /// The UNIQUE index's leading columns are all given: a row or two match, ordered in memory.
        let byName: Bool
        /// Only `rowid` and `uuid` are selected.
        let keysOnly: Bool

        init(
            _ schema: ItemClassSchema, equals: [(code: String, oneOf: [Data])], _ filter: Filter, limit: Int?,
            keysOnly: Bool = false
        ) {
            self.keysOnly = keysOnly
            table = schema.code
            self.equals = equals.map { Lookup(code: $0.code, count: $0.oneOf.count) }
            uuid = filter.uuid != nil
            rowid = filter.rowid != nil
            rowidAbove = filter.rowidAbove != nil
            keyclass = filter.accessibility != nil
            oneOf = filter.oneOf.map { [$0.uuids.count, $0.rowids.count] }
            self.limit = limit == .max ? nil : limit
            byName = uniqueLeadingColumns(schema).allSatisfy { code in equals.contains { $0.code == code } }
        }
    }

    /// The SQL texts built so far, by shape; bounded (a shape past the bound is built on every call).
    private static let selectTexts = Mutex<[SelectShape: String]>([:])
    private static let selectTextsBound = 512

    private static func selectSQL(_ shape: SelectShape, _ schema: ItemClassSchema) -> String {
        if let sql = selectTexts.withLock({ $0[shape] }) { return sql }
        let sql = buildSelectSQL(shape, schema)
        selectTexts.withLock { texts in if texts.count < selectTextsBound { texts[shape] = sql } }
        return sql
    }

    private static func buildSelectSQL(_ shape: SelectShape, _ schema: ItemClassSchema) -> String {
        var clauses: [String] = []
        for lookup in shape.equals {
            // `+column` keeps the planner from choosing an index for a column nearly every row shares.
            let unindexed = schema.attribute(lookup.code)?.flags.contains(.poorlySelective) == true ? "+" : ""
            clauses.append(
                "\(unindexed)\(column(lookup.code)) IN (\(Array(repeating: "?", count: lookup.count).joined(separator: ",")))"
            )
        }
        if shape.uuid { clauses.append("uuid = ?") }
        if shape.rowid { clauses.append("rowid = ?") }
        if shape.rowidAbove { clauses.append("rowid > ?") }
        if shape.keyclass { clauses.append("keyclass = ?") }
        if let counts = shape.oneOf {
            var alternatives: [String] = []
            if counts[0] > 0 {
                alternatives.append("uuid IN (\(Array(repeating: "?", count: counts[0]).joined(separator: ",")))")
            }
            if counts[1] > 0 {
                alternatives.append("rowid IN (\(Array(repeating: "?", count: counts[1]).joined(separator: ",")))")
            }
            clauses.append(alternatives.isEmpty ? "0" : "(" + alternatives.joined(separator: " OR ") + ")")
        }
        let columns = shape.keysOnly ? "rowid, uuid" : selectedColumns(schema)
        var sql = "SELECT \(columns) FROM \(schema.code)"
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        // A query by name (the UNIQUE index's leading columns) matches a row or two, ordered and limited by
        // ``forEach`` (an ORDER BY would let the planner trade that index for one that yields rowid order).
        // Any other query is served by a single-column index already in rowid order, so LIMIT stops at the
        // first rows.
        if shape.byName { return sql }
        return sql + " ORDER BY rowid" + (shape.limit.map { " LIMIT \($0)" } ?? "")
    }

    /// The columns `select` reads, in the order `decode` reads them by index.
    private static func selectedColumns(_ schema: ItemClassSchema) -> String {
        (["rowid", "uuid", "keyclass", "metadata", "rowkey", "secret"] + schema.attributes.map { column($0.code) })
            .joined(separator: ", ")
    }

    private static func decode(_ statement: borrowing BoundStatement, _ schema: ItemClassSchema) throws -> StoredRow {
        guard let accessibility = Accessibility(storageIndex: Int(statement.int64(2))) else {
            throw KeychainError(SecStatus.decode, "row has an unknown protection class")
        }
        guard let uuid = statement.data(1), let metadata = statement.data(3), let rowKey = statement.data(4) else {
            throw missingColumn
        }
        let lookups = statement.dataSlices(6..<CInt(6 + schema.attributes.count))
        return StoredRow(
            rowid: statement.int64(0), uuid: uuid, accessibility: accessibility, metadata: metadata, rowKey: rowKey,
            secret: statement.data(5), lookups: lookups)
    }
}
