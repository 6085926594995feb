import Foundation
import Synchronization

/// The control server's open connections by uid, so that one user's waiting connections stay bounded:
/// admitting one beyond the limit shuts down that user's oldest waiting connection (its thread then reads
/// end-of-stream and closes it), instead of making the newest, perhaps a `device lock`, wait behind them.
final class ConnectionTable: Sendable {
    private struct Entry { let fd: Int32; let uid: UInt32; var serving: Bool }
    private struct State { var entries: [UInt64: Entry] = [:]; var nextID: UInt64 = 1 }
    private let state = Mutex(State())

    /// Registers `fd` of `uid`; returns its id.
    func admit(_ fd: Int32, uid: UInt32, limit: Int) -> UInt64 {
        state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            let waiting = s.entries.filter { $0.value.uid == uid && !$0.value.serving }.keys.sorted()
            for oldest in waiting.prefix(max(0, waiting.count + 1 - limit)) {
                // Shut down, not closed: the descriptor stays valid until its own thread closes it.
                shutdown(s.entries[oldest]!.fd, Int32(SHUT_RDWR))
                s.entries[oldest]!.serving = true  // no longer counted: it is on its way out
            }
            s.entries[id] = Entry(fd: fd, uid: uid, serving: false)
            return id
        }
    }

    /// The connection's request is being handled: it no longer counts as waiting.
    func serving(_ id: UInt64) { state.withLock { $0.entries[id]?.serving = true } }

    /// Forgets the connection; call before closing its descriptor.
    func remove(_ id: UInt64) { _ = state.withLock { $0.entries.removeValue(forKey: id) } }
}
