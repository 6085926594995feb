import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// Moves the item database's WAL checkpoints off the request path (BENCHMARKS.md): SQLite's automatic
/// checkpoint runs inside the commit that crosses a thousand pages, the slowest one call in a few hundred
/// (p99s 20-50× the median). The request connection's WAL hook (which replaces that automatic
/// checkpoint) asks instead for a passive checkpoint from a connection of its own, opened for it on one
/// background queue shared by every store in the process (a test kit's thousand devices get no thread
/// or descriptor each). A passive checkpoint never blocks a reader or a writer, and copies only committed
/// frames: a crash at any point loses nothing (the WAL stays the record until the next writer restarts it).
///
/// The WAL restarts from its beginning only at a write that finds every frame copied: under writes back
/// to back, the background (which copies what was there when it began) stays a little behind and the WAL
/// keeps growing. At ``inlineLimit`` pages the commit that crosses it copies the rest itself (the frames
/// since the background's last pass, not the whole WAL), so the next write restarts it; while a background
/// pass holds the checkpoint lock that attempt copies nothing and the next commit tries again. The file
/// stays bounded (the limit plus what is written during one pass), and such a commit is one in hundreds.
///
/// Writers in turn (docs/filesystem.md; `add-generic-password` run 10,000 times with no daemon left a 222 MB WAL):
/// a process that opens the database after another left it rebuilds the WAL index, which forgets what was
/// copied, so a passive checkpoint never let the WAL restart and every process appended to it. So the
/// inline checkpoint is TRUNCATE (the WAL is copied and emptied), a store that opens a WAL of more than
/// ``backgroundThreshold`` frames empties it first, and a store that closes empties it (``truncate(_:)``).
package final class WALCheckpointer: Sendable {
    /// Frames not yet copied after which a background checkpoint is asked for (SQLite's automatic one: 1,000).
    package static let backgroundThreshold = 1000
    /// Frames in the WAL after which the commit copies what is left itself (16 MiB of 4 KiB pages).
    package static let inlineLimit = 4000

    private let path: String
    private let synchronousOff: Bool
    /// A checkpoint is queued or running: commits meanwhile ask for nothing more.
    private let pending = Atomic<Bool>(false)
    /// The WAL's frames the last checkpoint had copied (0 again once the WAL restarted).
    private let copied = Atomic<Int>(0)
    /// Background checkpoints that copied frames, for the tests.
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

    /// Called by SQLite after each commit with the WAL's length in frames.
    fileprivate func committed(_ connection: OpaquePointer?, frames: Int) {
        var copied = self.copied.load(ordering: .acquiring)
        if frames < copied {  // the WAL restarted since
            copied = 0
            self.copied.store(0, ordering: .releasing)
        }
        if frames >= Self.inlineLimit {
            // TRUNCATE, not PASSIVE: it restarts the WAL now, not at a next write that may be another
            // process's (which forgets what was copied). Busy (a background pass, a reader): the next commit tries again.
            var log: CInt = 0, done: CInt = 0
            if sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_TRUNCATE, &log, &done) == SQLITE_OK {
                self.copied.store(0, ordering: .releasing)
            }
            return
        }
        guard frames - copied >= Self.backgroundThreshold, !pending.exchange(true, ordering: .acquiringAndReleasing)
        else { return }
        Self.queue.async { [self] in
            checkpoint()
            pending.store(false, ordering: .releasing)
        }
    }

    /// Copies the WAL into the database and empties it, if no one else uses it (else nothing: SQLITE_BUSY at
    /// once, no waiting). At a store's close, and at its open when the WAL is longer than ``backgroundThreshold``.
    static func truncate(_ db: Database) {
        guard let connection = db.sqliteConnection else { return }
        sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil)
    }

    /// Empties the WAL at open if a process left more than ``backgroundThreshold`` frames in it.
    func truncateIfLong(_ db: Database) {
        var st = stat()
        guard stat(path + "-wal", &st) == 0, Int(st.st_size) > Self.backgroundThreshold * (4096 + 24) else { return }
        Self.truncate(db)
    }

    /// One passive checkpoint from a connection opened for it. A database gone meanwhile (a throwaway
    /// device removed) is not created again: there is nothing to do.
    private func checkpoint() {
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            return
        }
        if synchronousOff { sqlite3_exec(connection, "PRAGMA synchronous = OFF", nil, nil, nil) }
        // The pragma (not sqlite3_wal_checkpoint_v2, which does nothing on a connection that has not read
        // the database yet) opens the WAL and answers: busy, frames in the log, frames copied.
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(connection, "PRAGMA wal_checkpoint(PASSIVE)", -1, &statement, nil) == SQLITE_OK,
            sqlite3_step(statement) == SQLITE_ROW
        else { return }
        let done = Int(sqlite3_column_int64(statement, 2))
        if done > 0 {
            copied.store(done, ordering: .releasing)
            completed.add(1, ordering: .relaxed)
        }
    }
}

/// The C callback SQLite calls after a commit in WAL mode (`sqlite3_wal_hook`).
private func walHook(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ pages: CInt
) -> CInt {
    guard let context else { return SQLITE_OK }
    Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(connection, frames: Int(pages))
    return SQLITE_OK
}
