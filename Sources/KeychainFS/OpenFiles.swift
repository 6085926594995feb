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
        /// Writers: the value being built (read from the item at the first read or write that needs
        /// it, see `loaded`). Readers: the version being read (taken at open, and again whenever a read
        /// starts over at offset 0).
        var buffer: Data?
        /// Writers: `buffer` holds the item's value or a truncation of it. The value is read only when a
        /// read or a partial write needs it: a writer opened with O_TRUNC never reads it.
        var loaded = false
        /// Readers served from the kernel's page cache: their READs fill pages that outlive them, so each
        /// one reads the item as it is now (the pages are dropped on every change) instead of a snapshot.
        var pageCached = false
        /// When the file was opened (monotonic nanoseconds).
        var openedAt = DispatchTime.now().uptimeNanoseconds
        /// Readers: the version taken at open has not been read yet.
        var freshFromOpen = false
        var dirty: Bool
        /// A write failed: close commits nothing and reports this errno (all or nothing).
        var failure: Int32?
        /// The descriptor table (FUSE lock owner) that writes: a FLUSH from another one is a copy of the
        /// descriptor closing (say, in a forked child), not the writer's close, and must not commit.
        var writerOwner: UInt64?
        /// `writerOwner` after an explicit ftruncate and no write: the next FLUSH commits, from any owner.
        static let anyOwner = UInt64.max
        /// A protected value's answer from OPEN: its reads pass it and never prompt (nil: unprotected).
        var authorization: Data?
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

    /// The device state changed. Readers' copies are wiped: their next read fetches again, through the
    /// lock check. A writer whose item's class is no longer available loses its buffer (it may hold the
    /// secret it opened, or what it wrote): its reads and writes fail with EACCES and its close commits
    /// nothing, as the update would be refused anyway.
    func wipeOnDeviceChange(wipeWriters: Bool, isAvailable: (Accessibility) -> Bool) {
        handles.withLock { table in
            for (id, var handle) in table where handle.buffer != nil || handle.writable {
                if !handle.writable {
                    Sodium.wipe(&handle.buffer!)
                    handle.buffer = nil
                    handle.freshFromOpen = false
                } else if wipeWriters, let accessibility = handle.item.accessibility, !isAvailable(accessibility) {
                    if handle.buffer != nil { Sodium.wipe(&handle.buffer!) }
                    handle.buffer = nil
                    handle.dirty = false
                    handle.failure = EACCES
                }
                table[id] = handle
            }
        }
    }

    /// Inserts a reader holding `handle.buffer`; when `pageCacheable` and no writer holds its item (checked
    /// under the lock a writer's insert takes, so a writer arriving at the same moment sees this reader), it
    /// is served from the page cache instead and its copy is wiped.
    func insertReader(_ handle: Handle, pageCacheable: Bool) -> (id: UInt64, pageCached: Bool) {
        let id = nextID.withLock { n in defer { n += 1 }; return n }
        let cached = handles.withLock { table -> Bool in
            var reader = handle
            let cached = pageCacheable && !table.values.contains { $0.writable && $0.item.persistentRef == handle.item.persistentRef }
            if cached {
                if reader.buffer != nil { Sodium.wipe(&reader.buffer!) }
                (reader.buffer, reader.freshFromOpen, reader.pageCached) = (nil, false, true)
            }
            table[id] = reader
            return cached
        }
        return (id, cached)
    }

    /// Waits until no reader served from the page cache that opened within the last `recent` seconds holds
    /// `reference` open. A writer's O_TRUNC empties the file's size in the kernel and its writes grow it at
    /// once; a page-cached reader in the middle of its read would see an empty or zero-padded value. Readers
    /// that open while a writer exists go to the daemon instead (``insertReader(_:pageCacheable:)``), and a fresh reader
    /// (`cat`) closes within milliseconds: the writer's OPEN waits for those. A descriptor held open longer
    /// sees the rewrite as it would on any file (README, "The kernel's cache and the lock").
    func awaitPageCachedReaders(of reference: Data, recent: TimeInterval) {
        let window = UInt64(recent * 1e9)
        while handles.withLock({ table in
            let now = DispatchTime.now().uptimeNanoseconds
            return table.values.contains { $0.pageCached && $0.item.persistentRef == reference && now - $0.openedAt < window }
        }) {
            usleep(500)
        }
    }

    /// Removes a handle; the caller commits a dirty buffer and wipes it.
    func remove(_ id: UInt64) -> Handle? {
        handles.withLock { $0.removeValue(forKey: id) }
    }
}
