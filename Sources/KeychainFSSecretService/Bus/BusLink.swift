import Synchronization

/// The connection the service serves on now. The objects, their sessions' table and the change listener
/// outlive one connection: when the bus goes away and the service reconnects, the new connection takes
/// the old one's place here, and a closed link takes no new one (so a reconnect that finishes after
/// ``SecretService/stop()`` cannot leave a connection served).
final class BusLink: Sendable {
    private let state: Mutex<(connection: BusConnection, closed: Bool)>

    init(_ connection: BusConnection) { state = Mutex((connection, false)) }

    var connection: BusConnection { state.withLock { $0.connection } }

    /// Puts `connection` in place; returns the one it replaced, or nil when the link is closed (the caller
    /// then stops `connection` itself).
    func replace(with connection: BusConnection) -> BusConnection? {
        state.withLock { s in
            guard !s.closed else { return nil }
            defer { s.connection = connection }
            return s.connection
        }
    }

    /// Closes the link and returns its last connection, to stop.
    func close() -> BusConnection {
        state.withLock { s in
            s.closed = true
            return s.connection
        }
    }

    /// Sends `signal` on the connection in place (dropped while the bus is away).
    func emit(_ signal: BusSignal) { connection.emit(signal) }
}
