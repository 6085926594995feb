import Foundation
import KeychainFSEngine
import KeychainFSModel

/// Length-prefixed frames on a stream socket: a 4-byte big-endian length, then a ``ValueCodec`` payload.
/// Every read and write runs against one deadline for the whole frame (not per call), and a frame is
/// buffered as its bytes arrive, so a peer announcing a large frame costs only what it really sends.
package enum Framing {
    /// Largest request: a value at the engine's limit (``Keychain/maxValueBytes``) with its attributes fits
    /// easily. A larger request is errSecParam, on the client before it is sent and on the server.
    package static let maxRequestBytes = 4 << 20
    /// Largest reply: whatever the 4-byte length can say (results of kSecMatchLimitAll are not capped).
    package static let maxReplyBytes = Int(UInt32.max)
    private static let chunkBytes = 64 << 10

    static func write(_ value: KeychainValue, to fd: Int32, limit: Int, deadline: Date) throws(KeychainError) {
        let payload = ValueCodec.encode(value)
        guard payload.count <= limit else {
            throw KeychainError(
                SecStatus.param, "the control frame is \(payload.count) bytes; at most \(limit) bytes go in one frame")
        }
        try send(withUnsafeBytes(of: UInt32(payload.count).bigEndian) { Data($0) }, to: fd, deadline: deadline)
        try send(payload, to: fd, deadline: deadline)  // not appended to the header: a large reply is not copied
    }

    private static func send(_ data: Data, to fd: Int32, deadline: Date) throws(KeychainError) {
        let failure: Int32? = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                if let failure = try? wait(fd, for: Int16(POLLOUT), until: deadline) { return failure }
                let n = Glibc.send(
                    fd, buffer.baseAddress! + offset, min(chunkBytes, buffer.count - offset), Int32(MSG_NOSIGNAL))
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno == EAGAIN || errno == EWOULDBLOCK ? ETIMEDOUT : errno
                }
                offset += n
            }
            return nil
        }
        if let failure {
            throw KeychainError(
                SecStatus.notAvailable, "control socket write failed: \(String(cString: strerror(failure)))")
        }
    }

    /// Reads one frame of at most `limit` bytes; nil at a clean end of stream. `watch`, asked about once a
    /// second while nothing arrives, ends the wait early with its error (a daemon seen stopped).
    static func read(
        from fd: Int32, limit: Int, deadline: Date, watch: (() -> KeychainError?)? = nil
    ) throws(KeychainError) -> KeychainValue? {
        var senders = Set<Int32>()
        return try read(from: fd, limit: limit, deadline: deadline, senders: &senders, watch: watch)
    }

    /// Reads one frame, adding to `senders` the pid of every process that sent a part of it, as the kernel
    /// attaches it to each message on a socket with SO_PASSCRED (a process cannot name another pid without
    /// CAP_SYS_ADMIN), so a request written by a child or through a passed descriptor is told apart.
    static func read(
        from fd: Int32, limit: Int, deadline: Date, senders: inout Set<Int32>, watch: (() -> KeychainError?)? = nil
    ) throws(KeychainError) -> KeychainValue? {
        guard let header = try readExactly(4, from: fd, deadline: deadline, senders: &senders, watch: watch) else {
            return nil
        }
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        guard length <= limit else {
            throw KeychainError(
                SecStatus.param, "control frame too large (\(length) bytes; at most \(limit) bytes go in one frame)")
        }
        guard let payload = try readExactly(length, from: fd, deadline: deadline, senders: &senders, watch: watch)
        else {
            throw Self.closedMidFrame
        }
        do { return try ValueCodec.decode(payload) } catch {
            throw KeychainError(SecStatus.param, "malformed control frame: \(error.reason)")
        }
    }

    /// The peer closed the connection inside a frame: a transport failure (a daemon that exits between a
    /// reply's header and its payload), errSecNotAvailable as any other, not a malformed request (-50).
    static let closedMidFrame = KeychainError(
        SecStatus.notAvailable, "the connection closed in the middle of a control frame (truncated)")

    /// Reads `count` bytes, growing the buffer only as they arrive.
    private static func readExactly(
        _ count: Int, from fd: Int32, deadline: Date, senders: inout Set<Int32>, watch: (() -> KeychainError?)?
    ) throws(KeychainError) -> Data? {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: min(count, chunkBytes))
        while data.count < count {
            if let failure = try wait(fd, for: Int16(POLLIN), until: deadline, watch: watch) {
                throw KeychainError(
                    SecStatus.notAvailable, "control socket read failed: \(String(cString: strerror(failure)))")
            }
            let n = receive(fd, into: &chunk, count: min(chunk.count, count - data.count), senders: &senders)
            if n == 0 {
                if data.isEmpty { return nil }
                throw Self.closedMidFrame
            }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw KeychainError(
                    SecStatus.notAvailable, "control socket read failed: \(String(cString: strerror(errno)))")
            }
            data.append(contentsOf: chunk[0..<n])
        }
        return data
    }

    /// One recvmsg: the bytes, and the sender's pid when the kernel attached credentials (SCM_CREDENTIALS).
    private static func receive(_ fd: Int32, into chunk: inout [UInt8], count: Int, senders: inout Set<Int32>) -> Int {
        var control = [UInt8](repeating: 0, count: 64)
        return chunk.withUnsafeMutableBytes { bytes in
            control.withUnsafeMutableBytes { controlBytes in
                var vector = iovec(iov_base: bytes.baseAddress, iov_len: count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlBytes.baseAddress
                    message.msg_controllen = controlBytes.count
                    let n = recvmsg(fd, &message, Int32(MSG_CMSG_CLOEXEC))
                    if n > 0 { senders.formUnion(PeerCredentials.senders(in: &message)) }
                    return n
                }
            }
        }
    }

    /// Waits until `fd` is ready for `events` or the deadline passes (ETIMEDOUT); with a `watch`, in slices
    /// of a second, asking it after each whether to give up (its error is thrown).
    private static func wait(
        _ fd: Int32, for events: Int16, until deadline: Date, watch: (() -> KeychainError?)? = nil
    ) throws(KeychainError) -> Int32? {
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return ETIMEDOUT }
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let slice = watch == nil ? remaining : min(remaining, 1)
            let ready = poll(&descriptor, 1, Int32(min(slice * 1000, Double(Int32.max)).rounded(.up)))
            if ready > 0 { return nil }  // readable, writable, or hung up: recv/send report which
            if ready < 0 && errno != EINTR { return errno }
            if ready == 0, let error = watch?() { throw error }
        }
    }
}
