import Foundation

/// A child's exit, waited for on a thread of its own (so it never lingers as a zombie): its status (the
/// exit code, or the signal's number for a killed child), or nil if it has not ended in time.
package final class Exit: @unchecked Sendable {
    private var code: Int32 = -1
    private let ended = DispatchSemaphore(value: 0)

    package init(_ pid: pid_t) {
        Thread.detachNewThread { [self] in
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            let signal = raw & 0x7f
            code = signal == 0 ? (raw >> 8) & 0xff : signal
            ended.signal()
        }
    }

    /// The status, once the child has ended within `seconds`.
    package func status(within seconds: TimeInterval) -> Int32? {
        guard ended.wait(timeout: .now() + seconds) == .success else { return nil }
        ended.signal()  // a later call answers at once
        return code
    }
}

/// Reads a pipe to its end on a thread of its own, keeping at most `limit` bytes; closes it.
final class Drain: @unchecked Sendable {
    private var data = Data()
    private let lock = NSLock()
    private let finished = DispatchSemaphore(value: 0)

    init(_ fd: Int32, limit: Int) {
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                lock.withLock {
                    if data.count < limit { data.append(contentsOf: buffer[0..<min(n, limit - data.count)]) }
                }
            }
            close(fd)
            finished.signal()
        }
    }

    /// What was read (waiting a little for the end: a grandchild may hold the pipe open).
    func result() -> Data {
        _ = finished.wait(timeout: .now() + 5)
        return lock.withLock { data }
    }
}
