import Foundation
import KeychainEngine

/// Accepts connections on the control socket and answers each request with `handler`.
/// The socket is 0600 and only peers with the daemon's uid (or root) are served.
///
/// Bounded: at most ``maxConnections`` connections are served at once (more wait in the listen backlog),
/// each has ``requestSeconds`` to send its whole request and as long again to take the reply, and a
/// request is buffered only as it arrives, up to ``Framing/maxRequestBytes``.
public final class ControlServer: Sendable {
    public typealias Handler = @Sendable (ControlRequest) -> ControlResponse
    /// A handler that is told who sent the request (SO_PEERCRED), for per-application access.
    public typealias PeerHandler = @Sendable (ControlRequest, ControlPeer) -> ControlResponse

    /// Connections served at once.
    public static let maxConnections = 32
    /// Seconds a peer has to send its request, and again to read the reply.
    public static let requestSeconds: TimeInterval = 10

    public let socketPath: String
    private let listener: Int32
    private let handler: PeerHandler
    private let slots = DispatchSemaphore(value: ControlServer.maxConnections)

    /// Binds the socket (replacing a stale one) and starts accepting on a background thread.
    public convenience init(socketPath: String, handler: @escaping Handler) throws(KeychainError) {
        try self.init(socketPath: socketPath, peerHandler: { request, _ in handler(request) })
    }

    /// Binds the socket and answers each request with `peerHandler`, told the peer's pid and uid.
    public init(socketPath: String, peerHandler: @escaping PeerHandler) throws(KeychainError) {
        self.socketPath = socketPath
        self.handler = peerHandler
        let directory = (socketPath as NSString).deletingLastPathComponent
        mkdir(directory, 0o700)
        unlink(socketPath)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw KeychainError(SecStatus.notAvailable, "cannot create the control socket") }
        var address = try ControlSocket.address(socketPath)
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(previous)
        guard bound == 0, listen(listener, 64) == 0 else {
            Glibc.close(listener)
            throw KeychainError(SecStatus.notAvailable, "cannot listen on \(socketPath): \(String(cString: strerror(errno)))")
        }
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "keychainfs-control"
        thread.start()
    }

    /// Stops accepting and removes the socket file.
    public func close() {
        shutdown(listener, Int32(SHUT_RDWR))
        unlink(socketPath)
    }

    private func acceptLoop() {
        while true {
            slots.wait()
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                slots.signal()
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            let thread = Thread { [self] in
                serve(connection)
                slots.signal()
            }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { Glibc.close(connection) }
        var timeout = timeval(tv_sec: Int(Self.requestSeconds), tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard let peer = allowedPeer(connection) else {
            try? Framing.write(ControlResponse(status: SecStatus.authFailed, message: "this daemon serves only its owner").encoded, to: connection,
                               limit: Framing.maxReplyBytes, deadline: Date().addingTimeInterval(Self.requestSeconds))
            return
        }
        let response: ControlResponse
        do {
            guard let frame = try Framing.read(from: connection, limit: Framing.maxRequestBytes, deadline: Date().addingTimeInterval(Self.requestSeconds))
            else { return }
            response = handler(try ControlRequest(decoding: frame), peer)
        } catch {
            response = ControlResponse(error: error)
        }
        do {
            try Framing.write(response.encoded, to: connection, limit: Framing.maxReplyBytes, deadline: Date().addingTimeInterval(Self.requestSeconds))
        } catch where error.status == SecStatus.param {
            // A result beyond what one frame can hold: say so rather than close without an answer.
            try? Framing.write(ControlResponse(error: error).encoded, to: connection, limit: Framing.maxReplyBytes,
                               deadline: Date().addingTimeInterval(Self.requestSeconds))
        } catch {}
    }

    /// `struct ucred` (hidden behind _GNU_SOURCE in Glibc's module).
    private struct PeerCredentials { var pid: Int32 = 0; var uid: UInt32 = 0; var gid: UInt32 = 0 }
    private static let soPeerCred: Int32 = 17

    /// The peer, if it is the daemon's user or root.
    private func allowedPeer(_ connection: Int32) -> ControlPeer? {
        var credentials = PeerCredentials()
        var length = socklen_t(MemoryLayout<PeerCredentials>.size)
        guard getsockopt(connection, SOL_SOCKET, Self.soPeerCred, &credentials, &length) == 0,
              credentials.uid == getuid() || credentials.uid == 0 else { return nil }
        return ControlPeer(pid: credentials.pid, uid: credentials.uid)
    }
}

/// Who is on the other end of a control connection (SO_PEERCRED at connect time).
public struct ControlPeer: Sendable, Hashable {
    public let pid: Int32
    public let uid: UInt32

    public init(pid: Int32, uid: UInt32) {
        self.pid = pid
        self.uid = uid
    }
}
