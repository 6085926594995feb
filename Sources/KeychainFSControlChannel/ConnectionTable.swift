import Foundation
import Synchronization

/// The control server's open connections by uid, so that one user's connections stay bounded: admitting
/// one beyond a limit shuts down that user's oldest connection that is waiting (to send its request, or
/// for a worker) or, past the total limit, taking its reply slowly; never one whose request is being
/// handled. The newest, perhaps a `device lock`, never waits behind the others, and replies nobody reads
/// cannot pile up in memory.
final class ConnectionTable: Sendable {
    /// `waiting`: for its request or a worker; `received`: its request is in and waits for a worker;
    /// `handling`, `replying`. Only `waiting` connections (past the total, any not being handled) are
    /// closed to make room.
    enum Stage: Sendable { case waiting, received, handling, replying }
    private struct Entry { let fd: Int32; let uid: UInt32; let pid: Int32; var stage: Stage; var evicted = false }
    private struct State { var entries: [UInt64: Entry] = [:]; var nextID: UInt64 = 1 }
    private let state = Mutex(State())
    /// Whether the connections closed to make room are the flooder's first; off only by a test device's
    /// ``ControlServer/evictionSwitch`` (then the oldest waiting connection goes, whoever holds it).
    private let evictsFloodersFirst: Bool

    init(evictsFloodersFirst: Bool = true) { self.evictsFloodersFirst = evictsFloodersFirst }

    /// Registers `fd` of process `pid` of `uid`: at most `waiting` of the uid's connections wait and at most
    /// `total` are open. The connections closed to make room are those of the process holding the most
    /// waiting ones, oldest first: a flooder's, never the one connection of a `device lock` among them.
    func admit(_ fd: Int32, uid: UInt32, pid: Int32, waiting: Int, total: Int) -> UInt64 {
        state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            let mine = s.entries.filter { $0.value.uid == uid && !$0.value.evicted }
            let waitingEntries = mine.filter { $0.value.stage == .waiting }
            var held: [Int32: Int] = [pid: 1]
            for entry in waitingEntries.values { held[entry.pid, default: 0] += 1 }
            let byClaim = waitingEntries.sorted { a, b in
                let (heldA, heldB) = (held[a.value.pid]!, held[b.value.pid]!)
                return heldA != heldB && evictsFloodersFirst ? heldA > heldB : a.key < b.key
            }.map(\.key)
            var evict = Array(byClaim.prefix(max(0, waitingEntries.count + 1 - waiting)))
            let over = mine.count + 1 - evict.count - total
            if over > 0 {
                let idle = mine.filter { $0.value.stage != .handling && !evict.contains($0.key) }.keys.sorted()
                evict += idle.prefix(over)
            }
            for old in evict {
                // Shut down, not closed: the descriptor stays valid until its own thread closes it.
                shutdown(s.entries[old]!.fd, Int32(SHUT_RDWR))
                s.entries[old]!.evicted = true
            }
            s.entries[id] = Entry(fd: fd, uid: uid, pid: pid, stage: .waiting)
            return id
        }
    }

    /// The connection moved on: its request is being handled, or its reply is being sent. Beyond `limit`
    /// connections of its uid taking their replies, the oldest of them is shut down (a client that never
    /// reads holds its reply's memory until the send deadline otherwise).
    func advance(_ id: UInt64, to stage: Stage, limit: Int = .max) {
        state.withLock { s in
            guard let uid = s.entries[id]?.uid else { return }
            s.entries[id]!.stage = stage
            let replying = s.entries.filter { $0.value.uid == uid && $0.value.stage == stage && !$0.value.evicted }.keys
                .sorted()
            for old in replying.prefix(max(0, replying.count - limit)) where old != id {
                shutdown(s.entries[old]!.fd, Int32(SHUT_RDWR))
                s.entries[old]!.evicted = true
            }
        }
    }

    /// Whether the connection was shut down to make room (its request is then not handled).
    func isEvicted(_ id: UInt64) -> Bool { state.withLock { $0.entries[id]?.evicted ?? true } }

    /// Forgets the connection; call before closing its descriptor.
    func remove(_ id: UInt64) { _ = state.withLock { $0.entries.removeValue(forKey: id) } }
}
