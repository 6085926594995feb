import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// Moves the item database's WAL checkpoints off the request path (issue 27): SQLite's automatic
/// checkpoint runs inside the commit that crosses a thousand pages, the slowest one call in a few hundred
/// (p99s 20-50× the median). The request connection's WAL hook (which replaces that automatic
/// checkpoint) asks instead for a passive checkpoint from a connection of its own, opened for it on one
/// background queue shared by every store in the process (a test kit's thousand devices get no thread
/// or descriptor each). A passive checkpoint never blocks a reader or a writer, and copies only committed
/// frames: a crash at any point loses nothing (the WAL stays the record until the next writer restarts it).
/// Should the WAL reach ``inlineLimit`` pages all the same (the queue busy, a reader pinning old frames),
/// the commit checkpoints inline as SQLite would, so the file stays bounded.
package final class WALCheckpointer: Sendable {
    /// Pages in the WAL after which a background checkpoint is asked for (SQLite's automatic one: 1,000).
    package static let backgroundThreshold: CInt = 1000
    /// Pages after which the commit checkpoints inline (about 40 MB of 4 KiB pages).
    package static let inlineLimit: CInt = 10_000

    private let path: String
    private let synchronousOff: Bool
    /// A checkpoint is queued or running: commits meanwhile ask for nothing more.
    private let pending = Atomic<Bool>(false)
    /// Background checkpoints run so far, for the tests.
    package let completed = Atomic<Int>(0)

    private static let queue = DispatchQueue(label: "keychainfs.items.checkpoint", qos: .utility)

    init(path: String, synchronousOff: Bool) {
        self.path = path
        self.synchronousOff = synchronousOff
    }

    /// Installs the hook on `db` (the request connection). Unset it with ``uninstall(from:)`` before this
    /// object goes: SQLite keeps an unretained pointer to it.
    func install(on db: Database) {
        guard let connection = db.sqliteConnection else { return }
        sqlite3_wal_hook(connection, walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    static func uninstall(from db: Database) {
        guard let connection = db.sqliteConnection else { return }
        sqlite3_wal_hook(connection, nil, nil)
    }

    /// Called by SQLite after each commit with the WAL's length in pages.
    fileprivate func committed(_ connection: OpaquePointer?, pages: CInt) {
        if pages >= Self.inlineLimit {
            sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            return
        }
        guard pages >= Self.backgroundThreshold, !pending.exchange(true, ordering: .acquiringAndReleasing) else {
            return
        }
        Self.queue.async { [self] in
            checkpoint()
            pending.store(false, ordering: .releasing)
        }
    }

    /// One passive checkpoint from a connection opened for it. A database gone meanwhile (a throwaway
    /// device removed) is not created again: there is nothing to do.
    private func checkpoint() {
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            return
        }
        // Waits a little for the request connection's write lock rather than giving up at once.
        sqlite3_busy_timeout(connection, 1000)
        if synchronousOff { sqlite3_exec(connection, "PRAGMA synchronous = OFF", nil, nil, nil) }
        if sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil) == SQLITE_OK {
            completed.add(1, ordering: .relaxed)
        }
    }
}

/// The C callback SQLite calls after a commit in WAL mode (`sqlite3_wal_hook`).
private func walHook(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ pages: CInt
) -> CInt {
    guard let context else { return SQLITE_OK }
    Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(connection, pages: pages)
    return SQLITE_OK
}
