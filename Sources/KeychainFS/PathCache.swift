import Foundation
import KeychainEngine
import KeychainModel

/// Resolved paths, valid while the keychain's generation (bumped by every change of an item or of the
/// device state) stays the same and the view itself changes nothing. Only successful resolutions are
/// kept. Availability is never cached: reads check the lock themselves.
final class PathCache: Sendable {
    /// An item usually takes two entries (its directory and its `value`).
    private let cache = GenerationalCache<[UInt8], FSNode>(capacity: 16384)

    func node(_ path: [UInt8], generation: UInt64) -> FSNode? {
        cache.value(path, generation: generation)
    }

    func store(_ node: FSNode, for path: [UInt8], generation: UInt64) {
        cache.store(node, for: path, generation: generation)
    }

    /// Forgets everything (the view changed the tree itself: a group made or removed, a value hidden).
    func clear() {
        cache.removeAll()
    }
}
