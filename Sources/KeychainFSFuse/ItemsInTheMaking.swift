import Foundation
import KeychainFSModel
import KeychainFSSodium
import Synchronization

/// Items made by `mkdir` whose value has not been written and closed yet (docs/filesystem.md
/// "Creating items and what survives"). A creation through the mount is one SecItemAdd, at the close
/// that commits the value: committed at MKDIR, an item whose value commit was lost (a power cut) read as
/// an empty secret with success. Until then the item lives here only, in the daemon's memory: the mount
/// lists it and stats it, its xattrs and name can change, reading its value is ENODATA; the keychain's
/// other clients do not see it, and one never written is never stored (gone at rmdir or unmount).
final class ItemsInTheMaking: Sendable {
    struct Item: Sendable {
        let schema: ItemClassSchema
        /// What SecItemAdd will be given (class, naming attributes, accessibility, xattrs set meanwhile).
        var attributes: KeychainDictionary
        /// A reference of its own (`making:` and random bytes), so that it has an inode until it is made.
        let reference: Data
        /// `<class>/<group>/<item>` bytes: the path it is found at.
        var path: [UInt8]
        let created: Date
    }

    private struct State {
        var byPath: [[UInt8]: Item] = [:]
        /// Item in the making → the stored item its value made, for handles still open on it.
        var made: [Data: Data] = [:]
        /// The same by the item in the making's inode, while the kernel holds it: requests on that inode
        /// (a held descriptor's, a cached dentry's) reach the stored item, whose inode differs.
        var madeByInode: [UInt64: Data] = [:]
    }

    private let state = Mutex(State())
    /// Told the reference of each item in the making once it is stored or moved behind the kernel's back
    /// (an xattr of a naming attribute): the mount drops the kernel's entry for it, so that the next
    /// lookup finds the stored item's inode, or the item where it is now.
    private let madeObserver = Mutex<(@Sendable (Data) -> Void)?>(nil)

    func onMade(_ observer: @escaping @Sendable (Data) -> Void) { madeObserver.withLock { $0 = observer } }

    /// Tells the observer that the kernel's entry for `reference` must go.
    func entryChanged(_ reference: Data) { madeObserver.withLock { $0 }?(reference) }

    static let referencePrefix = Data("making:".utf8)

    static func isReference(_ reference: Data) -> Bool { reference.starts(with: referencePrefix) }

    /// Records a new item in the making at `path`; nil if one is already there.
    func insert(_ schema: ItemClassSchema, attributes: KeychainDictionary, path: [UInt8]) -> Item? {
        let item = Item(
            schema: schema, attributes: attributes, reference: Self.referencePrefix + Sodium.randomBytes(16),
            path: path, created: Date())
        return state.withLock { state in
            guard state.byPath[path] == nil else { return nil }
            state.byPath[path] = item
            return item
        }
    }

    func item(at path: [UInt8]) -> Item? { state.withLock { $0.byPath[path] } }

    func item(_ reference: Data) -> Item? { state.withLock { $0.byPath.values.first { $0.reference == reference } } }

    /// The items in the making under `prefix` (`<class>/<group>/`).
    func items(under prefix: [UInt8]) -> [Item] {
        state.withLock { $0.byPath.filter { $0.key.starts(with: prefix) }.map(\.value) }
    }

    /// Changes an item in the making; `change` may move it (its new path). Throws what `change` throws, or
    /// ENOENT when the item is gone, EEXIST when another is at its new path.
    func update(_ reference: Data, _ change: (inout Item) throws(FSError) -> Void) throws(FSError) {
        try state.withLock { (state) throws(FSError) in
            guard let entry = state.byPath.first(where: { $0.value.reference == reference }) else {
                throw FSError(ENOENT, "the item in the making is gone")
            }
            var item = entry.value
            try change(&item)
            if item.path != entry.key, state.byPath[item.path] != nil {
                throw FSError(EEXIST, "an item in the making has that name")
            }
            state.byPath[entry.key] = nil
            state.byPath[item.path] = item
        }
    }

    func remove(_ reference: Data) {
        state.withLock { state in
            if let key = state.byPath.first(where: { $0.value.reference == reference })?.key { state.byPath[key] = nil }
        }
    }

    /// Makes the item: `add` stores it (SecItemAdd with its value) and returns the stored item's reference.
    /// One add per item, even for two handles closing at once; a handle closing after it was made gets the
    /// stored item's reference (nil: `add` was called now).
    func make(_ reference: Data, _ add: (Item) throws(FSError) -> Data) throws(FSError) -> Data? {
        let made = try state.withLock { (state) throws(FSError) -> Data? in
            if let made = state.made[reference] { return made }
            guard let key = state.byPath.first(where: { $0.value.reference == reference })?.key else {
                throw FSError(ENOENT, "the item was removed before its value was written: nothing was stored")
            }
            let stored = try add(state.byPath[key]!)
            state.byPath[key] = nil
            state.made[reference] = stored
            state.madeByInode[Inode.item(reference)] = stored
            return nil
        }
        if made == nil, let observer = madeObserver.withLock({ $0 }) { observer(reference) }
        return made
    }

    /// The stored item that the item in the making of inode `inode` became, if it did.
    func stored(as inode: UInt64) -> Data? { state.withLock { $0.madeByInode[inode] } }

    /// Forgets which stored item the item in the making of `inode` became: the kernel forgot the inode.
    func forget(inode: UInt64) {
        state.withLock { state in
            guard let stored = state.madeByInode.removeValue(forKey: inode) else { return }
            if let reference = state.made.first(where: { $0.value == stored })?.key { state.made[reference] = nil }
        }
    }
}
