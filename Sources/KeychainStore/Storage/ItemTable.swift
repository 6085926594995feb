import KeychainModel
import Foundation
import GRDB

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
        var clauses: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        // Sorted: one SQL text per query shape, so the statement cache stays small (dictionary order varies).
        for (code, hashes) in filter.equals.sorted(by: { $0.code < $1.code }) {
            // `+column` keeps the planner from choosing an index for a column nearly every row shares.
            let unindexed = schema.attribute(code)?.flags.contains(.poorlySelective) == true ? "+" : ""
            clauses.append(
                "\(unindexed)\(column(code)) IN (\(Array(repeating: "?", count: hashes.count).joined(separator: ",")))")
            arguments.append(contentsOf: hashes)
        }
        if let uuid = filter.uuid { clauses.append("uuid = ?"); arguments.append(uuid) }
        if let rowid = filter.rowid { clauses.append("rowid = ?"); arguments.append(rowid) }
        if let above = filter.rowidAbove { clauses.append("rowid > ?"); arguments.append(above) }
        if let a = filter.accessibility { clauses.append("keyclass = ?"); arguments.append(a.storageIndex) }
        if let items = filter.oneOf {
            var alternatives: [String] = []
            if !items.uuids.isEmpty {
                alternatives.append(
                    "uuid IN (\(Array(repeating: "?", count: items.uuids.count).joined(separator: ",")))")
            }
            if !items.rowids.isEmpty {
                alternatives.append(
                    "rowid IN (\(Array(repeating: "?", count: items.rowids.count).joined(separator: ",")))")
            }
            clauses.append(alternatives.isEmpty ? "0" : "(" + alternatives.joined(separator: " OR ") + ")")
            for uuid in items.uuids { arguments.append(uuid) }
            for rowid in items.rowids { arguments.append(rowid) }
        }
        var sql = selectPrefix[schema.code] ?? "SELECT \(selectedColumns(schema)) FROM \(schema.code)"
        if !clauses.isEmpty { sql += " WHERE " + clauses.joined(separator: " AND ") }
        // A query by name (the UNIQUE index's leading columns) matches a row or two: `+rowid` keeps the
        // planner from trading that index for one that yields rowid order. Any other query is served by a
        // single-column index already in rowid order, so LIMIT stops at the first rows.
        let byName = uniqueLeadingColumns(schema).allSatisfy { code in filter.equals.contains { $0.code == code } }
        sql += byName ? " ORDER BY +rowid" : " ORDER BY rowid"
        if let limit, limit != .max { sql += " LIMIT \(limit)" }
        let statement = try db.cachedStatement(sql: sql)
        // A cursor decodes straight from the statement; fetchAll would first copy every row.
        let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(arguments))
        while let row = try cursor.next() { try body(try decode(row, schema)) }
    }

    package static func insert(_ db: Database, _ schema: ItemClassSchema, _ row: StoredRow) throws -> Int64 {
        let codes = schema.attributes.map(\.code)
        let names = ["uuid", "keyclass", "metadata", "rowkey", "secret"] + codes.map(column)
        let sql =
            "INSERT INTO \(schema.code) (\(names.joined(separator: ","))) VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ",")))"
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(values(row)))
        return db.lastInsertedRowID
    }

    package static func update(_ db: Database, _ schema: ItemClassSchema, _ row: StoredRow) throws {
        let codes = schema.attributes.map(\.code)
        let names = ["uuid", "keyclass", "metadata", "rowkey", "secret"] + codes.map(column)
        let sql = "UPDATE \(schema.code) SET \(names.map { "\($0) = ?" }.joined(separator: ",")) WHERE rowid = ?"
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(values(row) + [row.rowid]))
    }

    /// One prepared statement per class, run per row: a statement with the rowids written into its text
    /// was compiled afresh on every call (a delete's largest cost after the lookup).
    package static func delete(_ db: Database, _ schema: ItemClassSchema, rowids: [Int64]) throws {
        let statement = try db.cachedStatement(sql: "DELETE FROM \(schema.code) WHERE rowid = ?")
        for rowid in rowids { try statement.execute(arguments: [rowid]) }
    }

    private static func values(_ row: StoredRow) -> [(any DatabaseValueConvertible)?] {
        [row.uuid, row.accessibility.storageIndex, row.metadata, row.rowKey, row.secret] + row.lookups.map { $0 }
    }

    /// The columns `select` reads, in the order `decode` reads them by index (by name, GRDB compares
    /// case-insensitively: measurably slow at this row width).
    /// `SELECT <columns> FROM <table>` per class, built once (rebuilding it was a tenth of a lookup).
    private static let selectPrefix: [String: String] = Dictionary(
        uniqueKeysWithValues: Schema.storedClasses.map {
            ($0.code, "SELECT \(selectedColumns($0)) FROM \($0.code)")
        })

    private static func selectedColumns(_ schema: ItemClassSchema) -> String {
        (["rowid", "uuid", "keyclass", "metadata", "rowkey", "secret"] + schema.attributes.map { column($0.code) })
            .joined(separator: ", ")
    }

    private static func decode(_ row: Row, _ schema: ItemClassSchema) throws -> StoredRow {
        guard let accessibility = Accessibility(storageIndex: row[2]) else {
            throw KeychainError(SecStatus.decode, "row has an unknown protection class")
        }
        let lookups = (0..<schema.attributes.count).map { row[6 + $0] as Data? }
        return StoredRow(
            rowid: row[0], uuid: row[1], accessibility: accessibility, metadata: row[3], rowKey: row[4], secret: row[5],
            lookups: lookups)
    }
}
