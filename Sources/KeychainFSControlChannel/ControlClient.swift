import Foundation
import KeychainFSEngine
import KeychainFSModel
import Synchronization

/// Talks to a running daemon over its control socket. One request per connection.
package struct ControlClient: Sendable {
    package let socketPath: String
    /// How long to wait for an answer (unlocking runs Argon2id; a lockout answers at once).
    package var timeoutSeconds = 60

    package init(socketPath: String) { self.socketPath = socketPath }
    package init(vault: Vault) { self.init(socketPath: ControlSocket.path(for: vault)) }

    /// Whether something listens on the socket (a daemon, perhaps one that does not answer): a connect only.
    package var isListening: Bool { Self.daemonPID(socketPath: socketPath) != nil }

    /// The pid of the process listening on `socketPath` (SO_PEERCRED of a connection: the kernel's word,
    /// taken without a request, so it is known even of a daemon that answers nothing).
    package static func daemonPID(socketPath: String) -> Int32? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0, var address = try? ControlSocket.address(socketPath) else { return nil }
        defer { close(fd) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { return nil }
        return PeerCredentials.connector(of: fd)?.pid
    }

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
        let daemon = PeerCredentials.connector(of: fd)?.pid
        let watch = DaemonWatch(pid: daemon)
        // The greeting comes at once from a daemon that runs: a short wait, then a clear word on why not.
        let greetingDeadline = min(deadline, Date().addingTimeInterval(Self.greetingSeconds))
        let greetingFrame: KeychainValue
        do throws(KeychainError) {
            greetingFrame = try watch.readFrame(
                fd, limit: Framing.maxRequestBytes, deadline: greetingDeadline,
                closed: "the daemon closed the connection before greeting it")
        } catch  where error.message.hasSuffix("runs but is not answering") {
            // A daemon of a release before protocol 2 waits for the request and never greets.
            throw KeychainError(
                SecStatus.notAvailable,
                "\(error.message) (no greeting within \(Int(Self.greetingSeconds)) s: a daemon of a keychainfs release before control protocol \(controlProtocolVersion) never greets; restart it with this release)"
            )
        }
        let greeting = try ControlGreeting(decoding: greetingFrame)
        var request = request
        request.challenge = greeting.challenge
        try Framing.write(request.encoded, to: fd, limit: Framing.maxRequestBytes, deadline: deadline)
        if let limit = request.command.attachmentLimit {
            guard let attachment = request.attachment, attachment.count <= limit else {
                throw KeychainError(SecStatus.param, "'\(request.command.rawValue)' carries at most \(limit) bytes")
            }
            try Framing.write(.data(attachment), to: fd, limit: limit + 64, deadline: deadline)
        }
        let replyDeadline =
            request.command.usesWorker ? deadline : min(deadline, Date().addingTimeInterval(Self.deviceSeconds))
        return try ControlResponse(
            decoding: try watch.readFrame(
                fd, limit: Framing.maxReplyBytes, deadline: replyDeadline, closed: "the daemon closed the connection"))
    }

    /// How long a daemon has to greet a new connection: it does so before any work.
    package static let greetingSeconds: TimeInterval = 5
    /// How long a device, prompt or status command has for its answer (an unlock's Argon2id included).
    package static let deviceSeconds: TimeInterval = 15
}

/// The daemon at the other end of a connection (SO_PEERCRED names it), watched while a client waits: a
/// daemon stopped by a signal (any process of the user can SIGSTOP it) answers nothing until continued, so
/// the wait ends with a message that says so rather than at its deadline.
final class DaemonWatch: Sendable {
    let pid: Int32?
    /// Seconds a daemon may be seen stopped before the wait gives up (a debugger's breakpoint is brief).
    static let stoppedSeconds: TimeInterval = 2
    private let stoppedSince = Mutex<Date?>(nil)

    init(pid: Int32?) { self.pid = pid }

    /// The state of the daemon in words, when it is not simply running: "is stopped (…)", "has exited".
    func state() -> String? {
        guard let pid else { return nil }
        guard let stat = ProcStat(pid: pid), let state = stat.state else { return "(pid \(pid)) has exited" }
        switch state {
        case "T": return "(pid \(pid)) is stopped by a signal: it answers nothing until continued (kill -CONT \(pid))"
        case "t": return "(pid \(pid)) is stopped by a debugger: it answers nothing until the tracer lets it go"
        case "Z", "X": return "(pid \(pid)) has exited"
        default: return nil
        }
    }

    /// The error that ends a wait early: the daemon has been seen stopped (or gone) for a while.
    func check() -> KeychainError? {
        guard let words = state() else {
            stoppedSince.withLock { $0 = nil }
            return nil
        }
        let since = stoppedSince.withLock { seen in
            if seen == nil { seen = Date() }
            return seen!
        }
        guard Date().timeIntervalSince(since) >= Self.stoppedSeconds else { return nil }
        return KeychainError(SecStatus.notAvailable, "the keychainfs daemon \(words)")
    }

    /// One frame from the daemon, the wait watched; a transport failure says what is known of the daemon.
    func readFrame(_ fd: Int32, limit: Int, deadline: Date, closed: String) throws(KeychainError) -> KeychainValue {
        do throws(KeychainError) {
            guard let frame = try Framing.read(from: fd, limit: limit, deadline: deadline, watch: check) else {
                throw KeychainError(SecStatus.notAvailable, closed)
            }
            return frame
        } catch {
            throw error.status == SecStatus.notAvailable ? failure(error) : error
        }
    }

    /// `error` (a transport failure) with what is known of the daemon's state.
    func failure(_ error: KeychainError) -> KeychainError {
        if error.message.hasPrefix("the keychainfs daemon ") { return error }
        guard let words = state() else {
            guard error.message.contains(String(cString: strerror(ETIMEDOUT))) else { return error }
            let who = pid.map { "the keychainfs daemon (pid \($0))" } ?? "the keychainfs daemon"
            return KeychainError(SecStatus.notAvailable, "\(error.message): \(who) runs but is not answering")
        }
        return KeychainError(SecStatus.notAvailable, "\(error.message): the keychainfs daemon \(words)")
    }
}
