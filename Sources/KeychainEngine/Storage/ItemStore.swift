import Foundation
import GRDB

/// The SQLite file (WAL) holding one table per item class. Tables and their UNIQUE constraint are
/// generated from the schema table; lookups go through the keyed-hash columns.
final class ItemStore: Sendable {
    private let queue: DatabaseQueue

    init(path: String) throws(KeychainError) {
        var config = Configuration()
        config.journalMode = .wal
        config.label = "keychainfs.items"
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA secure_delete = ON")
        }
        do {
            queue = try DatabaseQueue(path: path, configuration: config)
            try queue.write { db in
                for schema in Schema.storedClasses {
                    for statement in ItemTable.createStatements(schema) { try db.execute(sql: statement) }
                }
            }
        } catch {
            throw KeychainError(SecStatus.notAvailable, "cannot open the item database \(path): \(error)")
        }
    }

    /// Runs `body` for reading. Not `DatabaseQueue.read`: that toggles `PRAGMA query_only` around every
    /// call, which expires every cached statement (measured: a quarter of a read's time went there).
    func read<T>(_ body: (Database) throws -> T) throws(KeychainError) -> T {
        do { return try queue.inDatabase(body) } catch { throw Self.translate(error) }
    }

    /// Runs `body` in one write transaction: all of it lands, or none of it.
    func write<T>(_ body: (Database) throws -> T) throws(KeychainError) -> T {
        do { return try queue.write(body) } catch { throw Self.translate(error) }
    }

    /// SQLite → OSStatus as Apple maps it (reference §0): constraint → duplicate, mismatch → no such attr, rest → not available.
    static func translate(_ error: any Error) -> KeychainError {
        if let error = error as? KeychainError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_CONSTRAINT: return KeychainError(SecStatus.duplicateItem, "an item with the same primary key already exists")
            case .SQLITE_MISMATCH: return KeychainError(SecStatus.noSuchAttr, "attribute type mismatch")
            case .SQLITE_CORRUPT, .SQLITE_NOTADB: return KeychainError(SecStatus.decode, "the item database is corrupt: \(error.resultCode)")
            default: return KeychainError(SecStatus.notAvailable, "database error \(error.resultCode)")
            }
        }
        return KeychainError(SecStatus.notAvailable, "database error")
    }
}
