import Foundation
import KeychainEngine
import KeychainModel

/// Talks to a running daemon over its control socket. One request per connection.
package struct ControlClient: Sendable {
    package let socketPath: String
    /// How long to wait for an answer (unlocking runs Argon2id; a lockout answers at once).
    package var timeoutSeconds = 60

    package init(socketPath: String) { self.socketPath = socketPath }
    package init(vault: Vault) { self.init(socketPath: ControlSocket.path(for: vault)) }

    /// Whether a daemon answers on the socket.
    package var isDaemonRunning: Bool { (try? send(StatusCall().request)) != nil }

    /// Sends `request` and returns the daemon's response (which may itself be an error status).
    /// A request over ``Framing/maxRequestBytes`` is errSecParam and is not sent.
    package func send(_ request: ControlRequest) throws(KeychainError) -> ControlResponse {
        guard let response = try sendIfServed(request) else {
            throw KeychainError(
                SecStatus.notAvailable, "no keychainfs daemon is serving this vault (nothing listens on \(socketPath))")
        }
        return response
    }

    /// Like ``send(_:)``, but nil when no daemon listens on the socket (nothing was sent), so a caller can
    /// tell "no daemon" from a daemon that failed mid-request.
    package func sendIfServed(_ request: ControlRequest) throws(KeychainError) -> ControlResponse? {
        let deadline = Date().addingTimeInterval(TimeInterval(timeoutSeconds))
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw KeychainError(SecStatus.notAvailable, "cannot create a socket") }
        defer { close(fd) }
        var address = try ControlSocket.address(socketPath)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let failure = errno
            if failure == ENOENT || failure == ECONNREFUSED { return nil }
            throw KeychainError(
                SecStatus.notAvailable,
                "cannot reach the keychainfs daemon (\(socketPath): \(String(cString: strerror(failure))))")
        }
        try Framing.write(request.encoded, to: fd, limit: Framing.maxRequestBytes, deadline: deadline)
        if let limit = request.command.attachmentLimit {
            guard let attachment = request.attachment, attachment.count <= limit else {
                throw KeychainError(SecStatus.param, "'\(request.command.rawValue)' carries at most \(limit) bytes")
            }
            try Framing.write(.data(attachment), to: fd, limit: limit + 64, deadline: deadline)
        }
        guard let answer = try Framing.read(from: fd, limit: Framing.maxReplyBytes, deadline: deadline) else {
            throw KeychainError(SecStatus.notAvailable, "the daemon closed the connection")
        }
        return try ControlResponse(decoding: answer)
    }
}
