import Foundation
import KeychainEngine
import Synchronization

/// Resolved paths, valid while the keychain's generation (bumped by every change of an item or of the
/// device state) stays the same and the view itself changes nothing. Only successful resolutions are
/// kept, and at most `capacity` of them. Availability is never cached: reads check the lock themselves.
final class PathCache: Sendable {
    private struct State {
        var generation: UInt64 = .max
        var nodes: [[UInt8]: FSNode] = [:]
    }

    private let state = Mutex(State())
    private let capacity = 2048

    func node(_ path: [UInt8], generation: UInt64) -> FSNode? {
        state.withLock { $0.generation == generation ? $0.nodes[path] : nil }
    }

    func store(_ node: FSNode, for path: [UInt8], generation: UInt64) {
        state.withLock { s in
            if s.generation != generation || s.nodes.count >= capacity {
                s.nodes.removeAll(keepingCapacity: true)
                s.generation = generation
            }
            s.nodes[path] = node
        }
    }

    /// Forgets everything (the view changed the tree itself: a group made or removed, a value hidden).
    func clear() {
        state.withLock { $0.nodes.removeAll(keepingCapacity: true) }
    }
}
