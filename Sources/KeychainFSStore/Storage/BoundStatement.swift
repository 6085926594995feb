import Foundation
import GRDB
import GRDBSQLite

/// A cached statement bound and stepped through SQLite's C API, for the item table's hot paths: GRDB's
/// `StatementArguments` boxes every value in an existential and its `Row` lowercases and hashes every
/// column name on each fetch (measured: a fifth of a lookup by primary key). The statement is reset and its
/// bindings cleared when this begins and when it ends, so nothing bound outlives the call.
struct BoundStatement: ~Copyable {
    private let handle: SQLiteStatement
    private let connection: SQLiteConnection?
    private var nextIndex: CInt = 1

    init(_ statement: Statement, in db: Database) {
        handle = statement.sqliteStatement
        // Not `statement.sql`: GRDB trims it through NSString on every read (measured: 40 % of a lookup).
        connection = db.sqliteConnection
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    deinit {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds the next parameter: a blob (copied by SQLite), or NULL for nil.
    mutating func bind(_ value: Data?) {
        let index = nextIndex
        nextIndex += 1
        guard let value else { sqlite3_bind_null(handle, index); return }
        // An empty buffer may have no address, which SQLite would bind as NULL.
        if value.isEmpty { sqlite3_bind_zeroblob(handle, index, 0); return }
        _ = value.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, CInt($0.count), Self.transient) }
    }

    mutating func bind(_ value: Int64) {
        sqlite3_bind_int64(handle, nextIndex, value)
        nextIndex += 1
    }

    /// Steps once: true when a row is ready to be read, false when the statement is done.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code:
            let message = connection.map { String(cString: sqlite3_errmsg($0)) }
            let sql = sqlite3_sql(handle).map { String(cString: $0) }
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
        }
    }

    /// Runs a statement that returns no rows.
    func execute() throws {
        while try step() {}
    }

    /// The current row's column `index` (0-based) as a blob; nil for NULL.
    func data(_ index: CInt) -> Data? {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_NULL: return nil
        default:
            // The blob first, then its size (SQLite's documented order).
            let bytes = sqlite3_column_blob(handle, index)
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let bytes else { return Data() }
            return Data(bytes: bytes, count: count)
        }
    }

    /// The current row's columns `columns` as blobs (nil for NULL), each a slice of one buffer: a row's
    /// dozen lookup hashes cost two allocations each when read one by one, and freeing them as much again
    /// (measured: a fifth of a lookup by primary key).
    func dataSlices(_ columns: Range<CInt>) -> [Data?] {
        let handle = self.handle
        return withUnsafeTemporaryAllocation(of: (bytes: UnsafeRawPointer?, count: Int).self, capacity: columns.count) {
            found in
            // Each column's bytes (the blob first, then its size: SQLite's documented order); -1 for NULL.
            var total = 0
            for (slot, index) in columns.enumerated() {
                guard sqlite3_column_type(handle, index) != SQLITE_NULL else { found[slot] = (nil, -1); continue }
                let bytes = sqlite3_column_blob(handle, index)
                let count = bytes == nil ? 0 : max(Int(sqlite3_column_bytes(handle, index)), 0)
                found[slot] = (bytes, count)
                total += count
            }
            var buffer = Data(count: total)
            buffer.withUnsafeMutableBytes { destination in
                var offset = 0
                for slot in 0..<columns.count where found[slot].count > 0 {
                    (destination.baseAddress! + offset).copyMemory(
                        from: found[slot].bytes!, byteCount: found[slot].count)
                    offset += found[slot].count
                }
            }
            var slices: [Data?] = []
            slices.reserveCapacity(columns.count)
            var offset = 0
            for slot in 0..<columns.count {
                let count = found[slot].count
                if count < 0 {
                    slices.append(nil)
                } else {
                    slices.append(count == 0 ? Data() : buffer[offset..<offset + count])
                    offset += count
                }
            }
            return slices
        }
    }

    func int64(_ index: CInt) -> Int64 { sqlite3_column_int64(handle, index) }

    /// SQLITE_TRANSIENT (a macro Swift does not import): SQLite copies the bound bytes.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
