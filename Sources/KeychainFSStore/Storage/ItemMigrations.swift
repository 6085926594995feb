import KeychainFSModel
import Foundation
import GRDB

/// The item database's schema history, applied with GRDB's DatabaseMigrator. A database of an older
/// format is first copied aside (SQLite's backup API) and the copy is removed only once every migration
/// committed; a migration that fails rolls back and leaves the copy for the user.
package enum ItemMigrations {
    /// Identifiers in order; a database that has applied one not listed here is from a newer keychainfs.
    package static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        // Format 1's tables, frozen (SchemaVersions.v1). The release of 2026-11-23 made them with IF NOT
        // EXISTS and recorded nothing, so they are made the same way here.
        migrator.registerMigration("v1-item-tables") { db in
            for statement in SchemaVersions.v1 { try db.execute(sql: SchemaVersions.ifNotExists(statement)) }
        }
        migrator.registerMigration("v2-vault-format") { db in
            try db.execute(sql: "CREATE TABLE vault_format (version INTEGER NOT NULL)")
            try db.execute(sql: "INSERT INTO vault_format (version) VALUES (2)")
        }
        // Format 3: metadata boxes bind the row's shape (ItemSealer.shapedBinding). Rows sealed before
        // are sealed again when their class is available (Keychain.sealRowShapes); the marker row stays
        // until none is left, and a build of format 2 refuses the database rather than fail each new row.
        migrator.registerMigration("v3-row-shapes") { db in
            try db.execute(sql: "CREATE TABLE row_shapes_pending (id INTEGER PRIMARY KEY CHECK (id = 1))")
            try db.execute(sql: "INSERT INTO row_shapes_pending (id) VALUES (1)")
            try db.execute(sql: "UPDATE vault_format SET version = 3")
        }
        return migrator
    }()

    /// Where the copy of a database under migration is kept until the migration committed.
    package static func backupPath(_ databasePath: String) -> String { databasePath + ".pre-migration" }

    /// Brings the database at `queue` to the current format. Refuses a database migrated by a newer build.
    package static func migrate(_ queue: DatabaseQueue, path: String) throws {
        let (superseded, pending, hasTables) = try queue.read { db in
            (
                try migrator.hasBeenSuperseded(db), try !migrator.hasCompletedMigrations(db),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'") ?? 0 > 0
            )
        }
        if superseded {
            throw KeychainError(
                SecStatus.wrongSecVersion,
                "\(path) was migrated by a newer keychainfs (format above \(VaultFormat.current)): upgrade keychainfs to open this vault"
            )
        }
        guard pending else { return }
        let backup = backupPath(path)
        if hasTables {
            // A copy left by an interrupted migration is the older and safer one: keep it, do not overwrite.
            if !FileManager.default.fileExists(atPath: backup) {
                try FileIO.createExclusively(backup, mode: 0o600)
                try queue.backup(to: try DatabaseQueue(path: backup))
            }
        }
        try migrator.migrate(queue)
        CrashPoint.reach("migration.afterDatabaseCommit")
        unlink(backup)
    }
}
