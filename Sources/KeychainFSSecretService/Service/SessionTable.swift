import Foundation
import Synchronization

/// Open sessions: who opened each (its unique bus name) and its transport crypto. A client may hold at most
/// ``maxPerPeer`` sessions (a new one beyond is refused), and every session of a client that leaves the bus
/// is closed, so memory stays bounded whatever clients do.
final class SessionTable: Sendable {
    static let maxPerPeer = 64
    static let maxTotal = 4096

    private struct Session {
        var owner: String
        var crypto: SessionCrypto
    }

    private struct State {
        var sessions: [UInt64: Session] = [:]
        var nextID: UInt64 = 1
    }

    private let state = Mutex(State())

    func open(owner: String, crypto: SessionCrypto) throws(BusError) -> UInt64 {
        let outcome: Result<UInt64, BusError> = state.withLock { s in
            if s.sessions.count >= Self.maxTotal {
                return .failure(.failed("too many open sessions (\(Self.maxTotal)); try again later"))
            }
            if s.sessions.values.count(where: { $0.owner == owner }) >= Self.maxPerPeer {
                return .failure(
                    .failed(
                        "a client may keep at most \(Self.maxPerPeer) sessions open; close one (Session.Close) first"))
            }
            let id = s.nextID
            s.nextID += 1
            s.sessions[id] = Session(owner: owner, crypto: crypto)
            return .success(id)
        }
        return try outcome.get()
    }

    /// The crypto of session `path`, which `caller` must have opened (another client's session is NoSession).
    func crypto(_ path: String, caller: String) throws(BusError) -> SessionCrypto {
        guard case .session(let id)? = ObjectPath.parse(path),
            let session = state.withLock({ $0.sessions[id] }), session.owner == caller
        else {
            throw .noSession("no open session \(path) of this client (call OpenSession first)")
        }
        return session.crypto
    }

    func close(_ id: UInt64, caller: String) throws(BusError) {
        let closed = state.withLock { s -> Bool in
            guard s.sessions[id]?.owner == caller else { return false }
            s.sessions[id] = nil
            return true
        }
        if !closed { throw .noSuchObject("no session \(ObjectPath.sessionPath(id)) of this client") }
    }

    func exists(_ id: UInt64) -> Bool { state.withLock { $0.sessions[id] != nil } }

    func closeAll(of owner: String) { state.withLock { $0.sessions = $0.sessions.filter { $0.value.owner != owner } } }

    /// Closes every client's sessions (the bus they were opened on went away).
    func closeEveryone() { state.withLock { $0.sessions.removeAll() } }

    var count: Int { state.withLock { $0.sessions.count } }
}
