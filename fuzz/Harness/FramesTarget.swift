import Foundation
@testable import KeychainFSControlChannel
import KeychainFSEngine
import KeychainFSModel

/// Control frames as the daemon reads them: the input is sent down a real socket pair and read frame by
/// frame until the stream ends or a frame is refused (a refused frame ends the connection in the daemon).
enum FramesTarget {
    static func run(_ data: Data) throws(PropertyViolation) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { return }
        defer { close(fds[0]) }
        // The input is at most libFuzzer's max_len (4 KiB by default): it fits in the socket's buffer.
        let sent = data.withUnsafeBytes { send(fds[1], $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        close(fds[1])
        guard sent == data.count else { return }
        var frames = 0
        while frames < 1_000 {
            let value: KeychainValue?
            do throws(KeychainError) {
                // As the daemon reads a request: its size limit and a deadline.
                value = try Framing.read(
                    from: fds[0], limit: Framing.maxRequestBytes, deadline: Date().addingTimeInterval(5))
            } catch {
                guard error.status == SecStatus.param else {
                    throw PropertyViolation("frame refused with \(error.status), not errSecParam")
                }
                return
            }
            guard let value else { return }
            _ = try? ControlRequest(decoding: value)
            frames += 1
        }
    }
}
