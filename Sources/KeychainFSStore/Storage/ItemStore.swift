import KeychainFSModel
import Foundation
import GRDB
import Synchronization

/// The SQLite file (WAL) holding one table per item class. Tables and their UNIQUE constraint are
/// generated from the schema table; lookups go through the keyed-hash columns.
package final class ItemStore: Sendable {
    private let queue: DatabaseQueue
    /// The database file, named in errors about its content.
    package let path: String
    /// Whether rows sealed before format 3 (no shape in their binding) may remain: until
    /// ``Keychain/sealRowShapes()`` has sealed them all again, they open the old way.
    package let unshapedRowsMayRemain = Atomic<Bool>(true)
    /// Checkpoints the WAL from another connection, off the request path.
    package let checkpointer: WALCheckpointer
    /// Whether the WAL is emptied when the store closes (not for a throwaway database, gone soon anyway).
    private let truncatesAtClose: Bool

    /// `testDevice`: the vault's config says so (only then may a test switch the durability off, ``Durability``).
    package init(path: String, testDevice: Bool = false) throws(KeychainError) {
        self.path = path
        var config = Configuration()
        config.journalMode = .wal
        config.label = "keychainfs.items"
        let durability = Durability.of(databaseAt: path, testDevice: testDevice)
        checkpointer = WALCheckpointer(path: path, synchronousOff: durability == .off)
        truncatesAtClose = durability != .off
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(durability.pragma); PRAGMA secure_delete = ON")
        }
        do {
            queue = try DatabaseQueue(path: path, configuration: config)
            // Set again after GRDB's own WAL set-up, which sets NORMAL (a commit acknowledged must survive a
            // power cut: FULL; a simulated device's throwaway database never syncs: OFF).
            try queue.inDatabase { try $0.execute(sql: "PRAGMA synchronous = \(durability.pragma)") }
            try ItemMigrations.migrate(queue, path: path)
            // Replaces SQLite's automatic checkpoint on this connection (``WALCheckpointer``), after emptying
            // a long WAL that a process left without closing (docs/filesystem.md, "Creating items and what survives").
            queue.inDatabase { db in
                checkpointer.truncateIfLong(db)
                checkpointer.install(on: db)
            }
        } catch let error as KeychainError {
            throw error
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            throw KeychainError(
                SecStatus.decode,
                "the item database \(path) is damaged (\(error.resultCode)): restore it from a backup ('keychainfs restore')"
            )
        } catch {
            throw KeychainError(SecStatus.notAvailable, "cannot open the item database \(path): \(error)")
        }
    }

    deinit {
        // SQLite holds the checkpointer unretained: the hook goes before it can.
        queue.inDatabase { db in
            WALCheckpointer.uninstall(from: db)
            if truncatesAtClose { WALCheckpointer.truncate(db) }
        }
    }

    /// Runs `body` for reading. Not `DatabaseQueue.read`: that toggles `PRAGMA query_only` around every
    /// call, which expires every cached statement (measured: a quarter of a read's time went there).
    package func read<T>(_ body: (Database) throws -> T) throws(KeychainError) -> T {
        do { return try queue.inDatabase(body) } catch { throw Self.translate(error, path: path) }
    }

    /// Runs `body` in one write transaction: all of it lands, or none of it. `crashPoint` names the moment
    /// between the body and the commit, for the crash-window tests (``CrashPoint``).
    ///
    /// BEGIN and COMMIT are statements kept per connection: `DatabaseQueue.write` compiles both afresh on
    /// every call (measured: a twentieth of an add). On any error the transaction is rolled back.
    package func write<T>(crashPoint: String? = nil, _ body: (Database) throws -> T) throws(KeychainError) -> T {
        do {
            return try queue.writeWithoutTransaction { db in
                try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
                do {
                    let result = try body(db)
                    if let crashPoint { CrashPoint.reach(crashPoint) }
                    try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
                    return result
                } catch {
                    if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK TRANSACTION") }
                    throw error
                }
            }
        } catch { throw Self.translate(error, path: path) }
    }

    /// SQLite → OSStatus as Apple maps it (docs/reference/keychain-semantics.md §0): constraint → duplicate, mismatch → no such attr, rest → not available.
    package static func translate(_ error: any Error, path: String) -> KeychainError {
        if let error = error as? KeychainError { return error }
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_CONSTRAINT:
                return KeychainError(SecStatus.duplicateItem, "an item with the same primary key already exists")
            case .SQLITE_MISMATCH: return KeychainError(SecStatus.noSuchAttr, "attribute type mismatch")
            case .SQLITE_CORRUPT, .SQLITE_NOTADB:
                return KeychainError(
                    SecStatus.decode,
                    "the item database \(path) is damaged (\(error.resultCode)): restore it from a backup ('keychainfs restore')"
                )
            default: return KeychainError(SecStatus.notAvailable, "database error \(error.resultCode)")
            }
        }
        return KeychainError(SecStatus.notAvailable, "database error")
    }
}
