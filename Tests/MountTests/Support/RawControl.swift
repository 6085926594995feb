import Foundation
import KeychainFSEngine
import KeychainFSModel

/// The control socket spoken by hand, as a hostile or foreign client would: frames written and read
/// here, not through ControlClient, so tests can hold connections open, trickle, or never read.
struct RawControl {
    let fd: Int32

    /// Connects to `path`; nil if nothing listens.
    init?(path: String) {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard connected == 0 else { Glibc.close(fd); return nil }
    }

    func close() { Glibc.close(fd) }

    /// A whole request frame for `command`, answering a greeting whose challenge is `challenge` (by default
    /// ``placeholderChallenge``, for a script to replace with the greeting's: ``answering(_:greeting:)``).
    static func frame(
        _ command: String, _ arguments: KeychainDictionary = [:], challenge: Data = RawControl.placeholderChallenge
    ) -> Data {
        let payload = ValueCodec.encode(
            .dictionary([
                "version": 2, "command": .string(command), "arguments": .dictionary(arguments),
                "challenge": .data(challenge),
            ]))
        return withUnsafeBytes(of: UInt32(payload.count).bigEndian) { Data($0) } + payload
    }

    /// Sixteen bytes no greeting is expected to hold: a request frame made before its greeting came.
    static let placeholderChallenge = Data(repeating: 0xAA, count: 16)

    /// The challenge of the daemon's greeting, read from the connection (nil when none came).
    func greeting() -> Data? {
        guard let header = readExactly(4) else { return nil }
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        guard let payload = readExactly(length), case .dictionary(let d)? = try? ValueCodec.decode(payload),
            case .data(let challenge)? = d["challenge"]
        else { return nil }
        return challenge
    }

    /// Reads the greeting and sends `command` answering it, as an honest client does; false if either failed.
    @discardableResult
    func request(_ command: String, _ arguments: KeychainDictionary = [:]) -> Bool {
        guard let challenge = greeting() else { return false }
        return send(Self.frame(command, arguments, challenge: challenge))
    }

    /// Python that answers a greeting: `answer(s, request)` reads the greeting on socket `s` and returns the
    /// request frame (made with the placeholder challenge) carrying the greeting's challenge.
    static let pythonAnswer = """
        def read_frame(s):
            head = b""
            while len(head) < 4:
                chunk = s.recv(4 - len(head))
                if not chunk: return b""
                head += chunk
            n = struct.unpack(">I", head)[0]; body = b""
            while len(body) < n:
                chunk = s.recv(n - len(body))
                if not chunk: break
                body += chunk
            return body
        def answer(s, request):
            greeting = read_frame(s)
            at = greeting.index(b"challenge") + len(b"challenge") + 5
            return request.replace(b"\\xaa" * 16, greeting[at:at + 16])

        """

    /// Sends all of `data`; false if the peer is gone.
    @discardableResult
    func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }

    /// Reads one reply frame: (status, message), or nil if the connection ended first. A greeting not read
    /// yet is passed over.
    func reply() -> (status: Int32, message: String)? {
        while true {
            guard let header = readExactly(4) else { return nil }
            let length = header.reduce(0) { $0 << 8 | Int($1) }
            guard let payload = readExactly(length), case .dictionary(let d)? = try? ValueCodec.decode(payload)
            else { return nil }
            if d["status"] == nil, d["challenge"] != nil { continue }
            guard let status = d["status"]?.numberValue else { return nil }
            return (Int32(status), d["message"]?.stringValue ?? "")
        }
    }

    private func readExactly(_ count: Int) -> Data? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while data.count < count {
            let n = recv(fd, &buffer, min(buffer.count, count - data.count), 0)
            if n <= 0 { return nil }
            data.append(contentsOf: buffer[0..<n])
        }
        return data
    }

    /// Runs each task on its own thread, all at once, and waits (at most `timeout`) for all of them.
    static func together<T: Sendable>(_ tasks: [@Sendable () -> T], timeout: TimeInterval = 120) -> [T?] {
        let results = Results<T>(count: tasks.count)
        let group = DispatchGroup()
        for (i, task) in tasks.enumerated() {
            group.enter()
            Thread.detachNewThread {
                results.set(i, task())
                group.leave()
            }
        }
        _ = group.wait(timeout: .now() + timeout)
        return results.values
    }
}

/// Results filled in by threads.
final class Results<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [T?]
    init(count: Int) { stored = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: T) { lock.withLock { stored[i] = value } }
    var values: [T?] { lock.withLock { stored } }
}
