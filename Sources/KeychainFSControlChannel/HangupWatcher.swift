import Foundation
import Synchronization

/// Watches the connections whose requests wait on a prompt, and reports the ones whose peer closed them
/// (exited, was killed), so their prompts end instead of keeping their place in the queue. One thread, while
/// anything is watched; a hang-up is seen within ``pollMilliseconds``.
final class HangupWatcher: Sendable {
    static let pollMilliseconds: Int32 = 100
    /// POLLRDHUP (behind _GNU_SOURCE): the peer closed its end.
    private static let peerClosed: Int16 = 0x2000
    private struct State { var watched: [UInt64: Int32] = [:]; var running = false }
    private let state = Mutex(State())
    private let onHangup: @Sendable (UInt64) -> Void

    init(onHangup: @escaping @Sendable (UInt64) -> Void) { self.onHangup = onHangup }

    /// Watches `fd` (of request `id`) until ``unwatch(_:)``.
    func watch(_ fd: Int32, id: UInt64) {
        let start = state.withLock { s -> Bool in
            s.watched[id] = fd
            defer { s.running = true }
            return !s.running
        }
        if start { Thread { [self] in loop() }.start() }
    }

    /// Stops watching request `id`; call before its descriptor is closed.
    func unwatch(_ id: UInt64) { _ = state.withLock { $0.watched.removeValue(forKey: id) } }

    private func loop() {
        while true {
            let watched = state.withLock { s -> [(id: UInt64, fd: Int32)] in
                if s.watched.isEmpty { s.running = false }
                return s.watched.map { ($0.key, $0.value) }
            }
            if watched.isEmpty { return }
            var descriptors = watched.map { pollfd(fd: $0.fd, events: Self.peerClosed, revents: 0) }
            guard poll(&descriptors, nfds_t(descriptors.count), Self.pollMilliseconds) > 0 else { continue }
            let hangup = Self.peerClosed | Int16(POLLHUP) | Int16(POLLERR)
            for (entry, descriptor) in zip(watched, descriptors) where descriptor.revents & hangup != 0 {
                // Only if still watched under the same id: a closed and reused descriptor is someone else's.
                let gone = state.withLock { $0.watched.removeValue(forKey: entry.id) != nil }
                if gone { onHangup(entry.id) }
            }
        }
    }
}
