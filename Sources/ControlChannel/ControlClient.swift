import Foundation
import KeychainEngine

/// Talks to a running daemon over its control socket. One request per connection.
public struct ControlClient: Sendable {
    public let socketPath: String
    /// How long to wait for an answer (unlocking runs Argon2id; a lockout answers at once).
    public var timeoutSeconds = 60

    public init(socketPath: String) { self.socketPath = socketPath }
    public init(vault: Vault) { self.init(socketPath: ControlSocket.path(for: vault)) }

    /// Whether a daemon answers on the socket.
    public var isDaemonRunning: Bool { (try? send(ControlRequest(.status))) != nil }

    /// Sends `request` and returns the daemon's response (which may itself be an error status).
    public func send(_ request: ControlRequest) throws(KeychainError) -> ControlResponse {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw KeychainError(SecStatus.notAvailable, "cannot create a socket") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = try ControlSocket.address(socketPath)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            throw KeychainError(SecStatus.notAvailable, "no keychainfs daemon is serving this vault (\(socketPath): \(String(cString: strerror(errno))))")
        }
        try Framing.write(request.encoded, to: fd)
        guard let answer = try Framing.read(from: fd) else { throw KeychainError(SecStatus.notAvailable, "the daemon closed the connection") }
        return try ControlResponse(decoding: answer)
    }
}
