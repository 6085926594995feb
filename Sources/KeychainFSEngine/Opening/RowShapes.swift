import KeychainFSModel
import KeychainFSStore
import Foundation
import GRDB

extension Keychain {
    /// Seals again, with their shape, the metadata boxes of rows written before format 3 (docs/security.md),
    /// for every class available now; once none is left the database's marker goes and later calls cost
    /// one query. Called when the vault opens and after each unlock. A row that opens with neither
    /// binding is left as it is: reads report it (errSecDecode). Never fails the caller's command. Once
    /// none is left, a row that opens only the old way is errSecDecode (``ItemStore/unshapedRowsMayRemain``).
    func sealRowShapes() {
        let pending = { (db: Database) throws -> Bool in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM row_shapes_pending") ?? 0 > 0
        }
        var done = (try? store.read(pending)) == false
        if !done {
            done =
                (try? protection.withLock { keybag throws(KeychainError) -> Bool in
                    try store.write { db -> Bool in
                        guard try pending(db) else { return true }
                        var waiting = false
                        for schema in Schema.storedClasses {
                            var resealed: [(rowid: Int64, metadata: Data)] = []
                            try ItemTable.forEach(db, schema, ItemTable.Filter()) { row in
                                guard let keys = try? keybag.keys(for: row.accessibility) else {
                                    waiting = true; return
                                }
                                if let metadata = try? ItemSealer.resealedWithShape(
                                    row, classCode: schema.code, metadataKey: keys.metadataKey)
                                {
                                    resealed.append((row.rowid, metadata))
                                }
                            }
                            for (rowid, metadata) in resealed {
                                try db.execute(
                                    sql: "UPDATE \(schema.code) SET metadata = ? WHERE rowid = ?",
                                    arguments: [metadata, rowid])
                            }
                        }
                        if !waiting { try db.execute(sql: "DELETE FROM row_shapes_pending") }
                        return !waiting
                    }
                }) == true
        }
        // Only after the marker's removal committed: until then older rows must still open.
        if done { store.unshapedRowsMayRemain.store(false, ordering: .releasing) }
    }
}
