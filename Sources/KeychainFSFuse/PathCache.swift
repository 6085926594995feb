import Foundation
import KeychainFSEngine
import KeychainFSModel

/// Resolved paths, valid while the keychain's generation (bumped by every change of an item or of the
/// device state) stays the same and the view itself changes nothing. Only successful resolutions are
/// kept. Availability is never cached: reads check the lock themselves.
///
/// It also keeps the listings of item groups (a service's accounts) of at most ``largestListingKept`` items:
/// a repeated `ls` of a group of 10,000 items opened every item's attributes again (measured: 0.12 s).
final class PathCache: Sendable {
    /// An item usually takes two entries (its directory and its `value`).
    private let cache = GenerationalCache<[UInt8], FSNode>(capacity: 16384)
    private let listings = GenerationalCache<[UInt8], [ListedItem]>(capacity: 8)
    /// Larger listings are made each time: memory stays bounded (a listing costs about 100 bytes an item).
    static let largestListingKept = 20_000

    func node(_ path: [UInt8], generation: UInt64) -> FSNode? {
        cache.value(path, generation: generation)
    }

    func store(_ node: FSNode, for path: [UInt8], generation: UInt64) {
        cache.store(node, for: path, generation: generation)
    }

    /// The listing of the group at `path`, if kept under `generation`.
    func listing(_ path: [UInt8], generation: UInt64) -> [ListedItem]? {
        listings.value(path, generation: generation)
    }

    func storeListing(_ items: [ListedItem], for path: [UInt8], generation: UInt64) {
        guard items.count <= Self.largestListingKept else { return }
        listings.store(items, for: path, generation: generation)
    }

    /// Forgets everything (the view changed the tree itself: a group made or removed, a value hidden).
    func clear() {
        clear(after: 0)
    }

    /// Forgets everything after a change of the keychain; `generation` is the keychain's after it (see
    /// ``GenerationalCache/removeAll(olderThan:)``: a resolution or listing that ran across the change
    /// stores nothing).
    func clear(after generation: UInt64) {
        cache.removeAll(olderThan: generation)
        listings.removeAll(olderThan: generation)
    }
}
