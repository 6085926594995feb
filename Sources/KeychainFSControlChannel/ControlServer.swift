import Foundation
import KeychainFSEngine
import KeychainFSModel

/// Accepts connections on the control socket and answers each request with `handler`.
/// The socket is 0600 and only peers with the daemon's uid (or root) are served.
///
/// Who asks: the process that connected (SO_PEERCRED) must be the one that wrote the request (the kernel's
/// per-message credentials, SO_PASSCRED) and must run the same executable when the connection was accepted,
/// when its request is handled and when the reply goes out (``ExecutableStamp``), so neither a child given
/// the socket, a descriptor passed on, nor an exec of an allowed binary borrows an identity. The daemon
/// speaks first (``ControlGreeting``), after taking that stamp, and a request must carry the greeting's
/// challenge: a request written before the daemon accepted (while it was stopped, say, and before an exec)
/// is refused, so the window between a stamp and an exec is never the attacker's to stretch.
///
/// Bounded, and never slow for the device: the accept loop never waits; each uid has at most
/// ``maxWaitingPerUser`` connections waiting (to send their request, or for a worker) and
/// ``maxConnectionsPerUser`` open, and a new one closes a waiting (or slowly replied-to) one beyond that:
/// the oldest of the process holding the most, so a flood of idle connections cannot keep `device lock`
/// out nor pile up replies (and a request once received is never the one closed);
/// item, key and vault commands share ``workers`` workers, while device, prompt and status commands run at
/// once. Each connection has ``requestSeconds`` to send its request and as long again to take the reply.
package final class ControlServer: Sendable {
    package typealias Handler = @Sendable (ControlRequest) -> ControlResponse
    /// A handler that is told who sent the request, for per-application access.
    package typealias PeerHandler = @Sendable (ControlRequest, ControlPeer) -> ControlResponse

    /// Connections of one uid waiting to send their request or for a worker.
    package static let maxWaitingPerUser = 64
    /// Connections of one uid open at once (waiting, handled, or taking their reply; at most ``workers`` of
    /// them taking their reply: the oldest beyond that is dropped).
    package static let maxConnectionsPerUser = 160
    /// Item, key and vault requests handled at once.
    package static let workers = 32
    /// The test switch (``TestSwitches``) under which a full table closes its oldest waiting connection
    /// whoever holds it, as it once did (docs/device.md): a flood then closes a `device lock` that has not sent yet.
    package static let evictionSwitch = "flooder-eviction"

    /// Whether a daemon of a vault that is (`testDevice`) or is not a test device closes a flooder's
    /// connections first.
    package static func evictsFloodersFirst(testDevice: Bool) -> Bool {
        !TestSwitches.isOff(evictionSwitch, testDevice: testDevice)
    }

    /// Seconds a peer has to send its request, and again to read the reply.
    package static let requestSeconds: TimeInterval = 10

    package let socketPath: String
    private let listener: Int32
    private let handler: PeerHandler
    private let connections: ConnectionTable
    private let workerSlots = DispatchSemaphore(value: ControlServer.workers)
    /// One attachment (a restored backup) is read at a time.
    private let attachmentSlot = DispatchSemaphore(value: 1)
    private let hangups: HangupWatcher
    /// Whether a request must answer its connection's greeting and come from what its process ran when it
    /// connected; off only by a test device's ``AccessPolicy/connectionBindingSwitch``.
    private let bindsConnections: Bool

    /// Binds the socket (replacing a stale one) and starts accepting on a background thread.
    package convenience init(socketPath: String, handler: @escaping Handler) throws(KeychainError) {
        try self.init(socketPath: socketPath, peerHandler: { request, _ in handler(request) })
    }

    /// Binds the socket and answers each request with `peerHandler`, told the peer's pid and uid.
    /// `requesterGone` is told the ``PromptRequester`` id of a request whose peer closed its connection
    /// while a prompt of that request was waiting.
    package init(
        socketPath: String, peerHandler: @escaping PeerHandler, bindsConnections: Bool = true,
        evictsFloodersFirst: Bool = true, requesterGone: @escaping @Sendable (UInt64) -> Void = { _ in }
    ) throws(KeychainError) {
        self.socketPath = socketPath
        connections = ConnectionTable(evictsFloodersFirst: evictsFloodersFirst)
        self.bindsConnections = bindsConnections
        self.handler = peerHandler
        hangups = HangupWatcher(onHangup: requesterGone)
        let directory = (socketPath as NSString).deletingLastPathComponent
        mkdir(directory, 0o700)
        unlink(socketPath)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw KeychainError(SecStatus.notAvailable, "cannot create the control socket") }
        // Inherited by every accepted connection, from connect() on: bytes sent before accept carry credentials too.
        var on: Int32 = 1
        setsockopt(listener, SOL_SOCKET, PeerCredentials.soPassCred, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = try ControlSocket.address(socketPath)
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        umask(previous)
        guard bound == 0, listen(listener, 128) == 0 else {
            Glibc.close(listener)
            throw KeychainError(
                SecStatus.notAvailable, "cannot listen on \(socketPath): \(String(cString: strerror(errno)))")
        }
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "keychainfs-control"
        thread.start()
    }

    /// Stops accepting and removes the socket file.
    package func close() {
        shutdown(listener, Int32(SHUT_RDWR))
        unlink(socketPath)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE || errno == ENOMEM || errno == ENOBUFS {
                    usleep(10_000); continue
                }
                return
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            let peer = PeerCredentials.connector(of: connection)
            let id = connections.admit(
                connection, uid: peer?.uid ?? UInt32.max, pid: peer?.pid ?? 0, waiting: Self.maxWaitingPerUser,
                total: Self.maxConnectionsPerUser)
            let thread = Thread { [self] in
                serve(connection, id: id, peer: peer)
                connections.remove(id)
                Glibc.close(connection)
            }
            thread.start()
        }
    }

    private func serve(_ connection: Int32, id: UInt64, peer connector: (pid: Int32, uid: UInt32)?) {
        let deadline = Date().addingTimeInterval(Self.requestSeconds)
        var timeout = timeval(tv_sec: Int(Self.requestSeconds), tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let connector, connector.uid == getuid() || connector.uid == 0 else {
            return reply(
                ControlResponse(status: SecStatus.authFailed, message: "this daemon serves only its owner"),
                on: connection)
        }
        // Bound to what the process runs now, before the greeting: a request must answer the greeting, so
        // it was written after this stamp, however long the daemon was stopped before accepting.
        let peer = PeerProcess.connecting(pid: connector.pid, uid: connector.uid)
        // Root's processes are beyond a non-root daemon's view of /proc: root is trusted as root.
        let stamped = peer.connectedAs != nil || (peer.uid == 0 && getuid() != 0)
        let response: ControlResponse
        do throws(KeychainError) {
            let greeting = ControlGreeting()
            try Framing.write(greeting.encoded, to: connection, limit: Framing.maxRequestBytes, deadline: deadline)
            var senders = Set<Int32>()
            guard
                let frame = try Framing.read(
                    from: connection, limit: Framing.maxRequestBytes, deadline: deadline, senders: &senders)
            else { return }
            var request = try ControlRequest(decoding: frame)
            if bindsConnections, request.challenge != greeting.challenge {
                throw KeychainError(
                    SecStatus.missingEntitlement,
                    "the request does not answer this connection's greeting: it was written before the daemon accepted the connection"
                )
            }
            if let limit = request.command.attachmentLimit {
                request.attachment = try readAttachment(connection, limit: limit, deadline: deadline, senders: &senders)
            }
            connections.advance(id, to: .received)
            try checkIdentity(peer, stamped: stamped, senders: senders)
            response = try handle(
                request, peer: peer, id: id, connection: connection, deadline: deadline, stamped: stamped)
        } catch {
            response = ControlResponse(error: error)
        }
        connections.advance(id, to: .replying, limit: Self.workers)
        reply(response, on: connection)
    }

    /// The request comes from the process that connected, running what it ran then.
    private func checkIdentity(_ peer: ControlPeer, stamped: Bool, senders: Set<Int32>) throws(KeychainError) {
        if let other = senders.first(where: { $0 != peer.pid }) {
            throw KeychainError(
                SecStatus.missingEntitlement,
                "the request was written by process \(other), not by process \(peer.pid) that connected: a connection cannot be handed on"
            )
        }
        guard bindsConnections else { return }
        guard stamped else {
            throw KeychainError(SecStatus.missingEntitlement, "process \(peer.pid) cannot be identified")
        }
        if let changed = peer.changedSinceConnecting() { throw KeychainError(SecStatus.missingEntitlement, changed) }
    }

    private func handle(
        _ request: ControlRequest, peer: ControlPeer, id: UInt64, connection: Int32, deadline: Date, stamped: Bool
    ) throws(KeychainError) -> ControlResponse {
        if request.command.usesWorker {
            // In short waits, so a connection shut down to make room lets its descriptor go at once.
            while workerSlots.wait(timeout: .now() + 0.05) == .timedOut {
                if connections.isEvicted(id) {
                    throw KeychainError(SecStatus.notAvailable, "the connection was closed to make room for newer ones")
                }
                guard Date() < deadline else {
                    throw KeychainError(
                        SecStatus.notAvailable,
                        "the daemon is busy: no worker became free within \(Int(Self.requestSeconds)) s")
                }
            }
        }
        defer { if request.command.usesWorker { workerSlots.signal() } }
        connections.advance(id, to: .handling)
        let requester = PromptRequester(id: id) { [hangups] in hangups.watch(connection, id: id) }
        let response = PromptRequester.$current.withValue(requester) { handler(request, peer) }
        hangups.unwatch(id)
        // Whatever it asked, the answer goes only to the process that asked, still running what it ran.
        try checkIdentity(peer, stamped: stamped, senders: [])
        return response
    }

    /// The second frame of a command that carries bytes (a backup to restore): read by the one attachment slot.
    private func readAttachment(_ connection: Int32, limit: Int, deadline: Date, senders: inout Set<Int32>)
        throws(KeychainError) -> Data
    {
        guard attachmentSlot.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow)) == .success else {
            throw KeychainError(SecStatus.notAvailable, "another restore is being received; try again")
        }
        defer { attachmentSlot.signal() }
        guard
            case .data(let bytes)? = try Framing.read(
                from: connection, limit: limit + 64, deadline: deadline, senders: &senders),
            bytes.count <= limit
        else {
            throw KeychainError(SecStatus.param, "the request's attachment is missing or larger than \(limit) bytes")
        }
        return bytes
    }

    private func reply(_ response: ControlResponse, on connection: Int32) {
        let deadline = Date().addingTimeInterval(Self.requestSeconds)
        do {
            try Framing.write(response.encoded, to: connection, limit: Framing.maxReplyBytes, deadline: deadline)
        } catch let error where error.status == SecStatus.param {
            // A result beyond what one frame can hold: say so rather than close without an answer.
            try? Framing.write(
                ControlResponse(error: error).encoded, to: connection, limit: Framing.maxReplyBytes, deadline: deadline)
        } catch {}
    }
}

/// Who is on the other end of a control connection: the process that connected and wrote the request,
/// as the engine names any peer (``PeerProcess``).
package typealias ControlPeer = PeerProcess
