import Foundation
import KeychainEngine
import SodiumCrypto
import Synchronization

/// Open `value` files. Writers buffer the whole value and commit it atomically at flush/close;
/// readers keep the version they started reading so a rewrite never shows them a mix.
final class OpenFiles: Sendable {
    struct Handle {
        let item: FSItem
        let file: ItemFile
        let writable: Bool
        let append: Bool
        /// Writers: the value being built. Readers: the version being read (taken at open, and again
        /// whenever a read starts over at offset 0).
        var buffer: Data?
        /// Readers: the version taken at open has not been read yet.
        var freshFromOpen = false
        var dirty: Bool
        /// A write failed: close commits nothing and reports this errno (all or nothing).
        var failure: Int32?
        /// The descriptor table (FUSE lock owner) that writes: a FLUSH from another one is a copy of the
        /// descriptor closing (say, in a forked child), not the writer's close, and must not commit.
        var writerOwner: UInt64?
    }

    private let handles = Mutex<[UInt64: Handle]>([:])
    private let nextID = Mutex<UInt64>(1)

    func insert(_ handle: Handle) -> UInt64 {
        let id = nextID.withLock { n in defer { n += 1 }; return n }
        handles.withLock { $0[id] = handle }
        return id
    }

    /// Runs `body` on the handle `id` under the table's lock.
    func with<T>(_ id: UInt64, _ body: (inout Handle) throws(FSError) -> T) throws(FSError) -> T {
        try handles.withLock { table throws(FSError) -> T in
            guard var handle = table[id] else { throw FSError(EBADF, "unknown file handle") }
            defer { table[id] = handle }
            return try body(&handle)
        }
    }

    /// Wipes what readers hold (the device locked or an item changed): their next read fetches again,
    /// through the lock check. Writers keep their buffers, which only their own close commits.
    func wipeReaderSnapshots() {
        handles.withLock { table in
            for (id, var handle) in table where !handle.writable && handle.buffer != nil {
                Sodium.wipe(&handle.buffer!)
                handle.buffer = nil
                handle.freshFromOpen = false
                table[id] = handle
            }
        }
    }

    /// Removes a handle; the caller commits a dirty buffer and wipes it.
    func remove(_ id: UInt64) -> Handle? {
        handles.withLock { $0.removeValue(forKey: id) }
    }
}
