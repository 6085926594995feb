import Foundation
import KeychainEngine

/// Length-prefixed frames on a stream socket: a 4-byte big-endian length, then a ``ValueCodec`` payload.
enum Framing {
    /// Largest frame accepted (a 1 MiB secret plus attributes fits easily).
    static let maxFrameBytes = 4 << 20

    static func write(_ value: KeychainValue, to fd: Int32) throws(KeychainError) {
        let payload = ValueCodec.encode(value)
        var frame = withUnsafeBytes(of: UInt32(payload.count).bigEndian) { Data($0) }
        frame.append(payload)
        let failure: Int32? = frame.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return nil
        }
        if let failure { throw KeychainError(SecStatus.notAvailable, "control socket write failed: \(String(cString: strerror(failure)))") }
    }

    /// Reads one frame; nil at a clean end of stream.
    static func read(from fd: Int32) throws(KeychainError) -> KeychainValue? {
        guard let header = try readExactly(4, from: fd) else { return nil }
        let length = header.reduce(0) { $0 << 8 | Int($1) }
        guard length <= maxFrameBytes else { throw KeychainError(SecStatus.param, "control frame too large") }
        guard let payload = try readExactly(length, from: fd) else { throw KeychainError(SecStatus.param, "truncated control frame") }
        do { return try ValueCodec.decode(payload) } catch { throw KeychainError(SecStatus.param, "malformed control frame: \(error.reason)") }
    }

    private static func readExactly(_ count: Int, from fd: Int32) throws(KeychainError) -> Data? {
        var data = Data(count: count)
        var offset = 0
        while offset < count {
            let n = data.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress! + offset, count - offset, 0) }
            if n == 0 {
                if offset == 0 { return nil }
                throw KeychainError(SecStatus.param, "truncated control frame")
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw KeychainError(SecStatus.notAvailable, "control socket read failed: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
        return data
    }
}
