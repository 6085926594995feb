import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSSodium
import Synchronization

/// Open `value` files. Writers buffer the whole value and commit it atomically at flush/close;
/// readers keep the version they started reading so a rewrite never shows them a mix, one copy per
/// version shared by all of them (``SharedPlaintext``). A user holds at most ``maxHandlesPerUser`` open.
final class OpenFiles: Sendable {
    /// The most files one user may hold open on the mount: ENFILE beyond (docs/filesystem.md). A handle
    /// costs a few hundred bytes (readers share their copy), a writer its buffer (at most 1 MiB).
    static let maxHandlesPerUser = 16_384
    /// The most writers one user may hold open on the mount (each may buffer a whole value): ENFILE beyond.
    static let maxWritersPerUser = 256

    struct Handle {
        let item: FSItem
        let file: ItemFile
        let writable: Bool
        let append: Bool
        /// Writers: the value being built (read from the item at the first read or write that needs
        /// it, see `loaded`).
        var buffer: Data?
        /// Readers: the version being read (taken at open, and again whenever a read starts over at
        /// offset 0), shared with the other readers of that version.
        var snapshot: SharedPlaintext?
        /// Readers: which version of the value `snapshot` is (or was, once a device change wiped it): a read
        /// that continues past offset 0 must find the item still at that version (docs/filesystem.md, "One
        /// version per read").
        var version: Data?
        /// The user the handle counts against (``OpenFiles/maxHandlesPerUser``).
        var user: UInt32 = 0
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

    /// The handles, and what is counted of them under the same lock: writers by item, handles by user.
    private struct Table {
        var handles: [UInt64: Handle] = [:]
        var writers: [Data: Int] = [:]
        var perUser: [UInt32: Int] = [:]
        var writersPerUser: [UInt32: Int] = [:]
        var plaintexts = SharedPlaintexts()
        /// Device changes seen (each wipes every copy): a copy fetched before one is never kept after it.
        var deviceChanges: UInt64 = 0

        mutating func add(_ handle: Handle, id: UInt64) throws(FSError) {
            guard perUser[handle.user, default: 0] < OpenFiles.maxHandlesPerUser else {
                throw FSError(ENFILE, "this user holds \(OpenFiles.maxHandlesPerUser) files open on the mount")
            }
            if handle.writable {
                guard writersPerUser[handle.user, default: 0] < OpenFiles.maxWritersPerUser else {
                    throw FSError(
                        ENFILE, "this user holds \(OpenFiles.maxWritersPerUser) files open for writing on the mount")
                }
                writersPerUser[handle.user, default: 0] += 1
                writers[handle.item.persistentRef, default: 0] += 1
            }
            perUser[handle.user, default: 0] += 1
            handles[id] = handle
        }

        mutating func remove(_ id: UInt64) -> Handle? {
            guard let handle = handles.removeValue(forKey: id) else { return nil }
            perUser[handle.user, default: 1] -= 1
            if perUser[handle.user] == 0 { perUser[handle.user] = nil }
            if handle.writable {
                writers[handle.item.persistentRef, default: 1] -= 1
                if writers[handle.item.persistentRef] == 0 { writers[handle.item.persistentRef] = nil }
                writersPerUser[handle.user, default: 1] -= 1
                if writersPerUser[handle.user] == 0 { writersPerUser[handle.user] = nil }
            }
            return handle
        }
    }

    private let table = Mutex(Table())
    /// What readers' copies may hold (``PlaintextBudget``).
    let budget = PlaintextBudget()
    private let nextID = Mutex<UInt64>(1)

    private func newID() -> UInt64 {
        nextID.withLock { n in
            defer { n += 1 }; return n
        }
    }

    func insert(_ handle: Handle) throws(FSError) -> UInt64 {
        let id = newID()
        try table.withLock { table throws(FSError) in try table.add(handle, id: id) }
        return id
    }

    /// Runs `body` on the handle `id` under the table's lock.
    func with<T>(_ id: UInt64, _ body: (inout Handle) throws(FSError) -> T) throws(FSError) -> T {
        try table.withLock { table throws(FSError) -> T in
            guard var handle = table.handles[id] else { throw FSError(EBADF, "unknown file handle") }
            defer { table.handles[id] = handle }
            return try body(&handle)
        }
    }

    /// How many device changes have wiped the copies so far: read before fetching a value, and handed to
    /// ``keep(_:version:oneVersion:fetchedAfter:reader:offset:size:)`` or ``insertReader(_:content:fetchedAfter:pageCacheable:)``.
    func deviceChanges() -> UInt64 { table.withLock { $0.deviceChanges } }

    /// Keeps `content` (fetched when ``deviceChanges()`` was `seen`) as the reader `handle`'s shared copy and
    /// returns its bytes from `offset`, under the lock a device change's wipe takes, so the slice is of a copy
    /// no wipe has reached. Nil, with `content` wiped, when a device change came after the fetch: then the
    /// copy might hold a secret of a class locked since, and the caller fetches again, through the lock check.
    /// With `oneVersion`, a read that continues a version (`offset` > 0) which is no longer the item's is
    /// EIO: the reader never gets the bytes of another version at the same offset.
    func keep(
        _ content: consuming Data, version: Data?, oneVersion: Bool, fetchedAfter seen: UInt64, reader handle: UInt64,
        offset: Int, size: Int
    ) throws(FSError) -> Data? {
        var handedOver: Data? = consume content
        return try table.withLock { table throws(FSError) -> Data? in
            var fetched = handedOver!
            handedOver = nil
            guard var reader = table.handles[handle] else {
                Sodium.wipe(&fetched)
                throw FSError(EBADF, "unknown file handle")
            }
            guard table.deviceChanges == seen else {
                Sodium.wipe(&fetched)
                return nil
            }
            if oneVersion, offset > 0, reader.version != version {
                Sodium.wipe(&fetched)
                throw FSError(EIO, "the value was rewritten since this read began: read it again from the start")
            }
            let copy = try table.plaintexts.share(
                consume fetched, item: reader.item.persistentRef, file: reader.file, user: reader.user, budget: budget)
            reader.snapshot = copy
            reader.version = version
            table.handles[handle] = reader
            return copy.slice(offset: offset, size: size)
        }
    }

    /// The device state changed. Readers' copies are wiped: their next read fetches again, through the
    /// lock check. A writer whose item's class is no longer available loses its buffer (it may hold the
    /// secret it opened, or what it wrote): its reads and writes fail with EACCES and its close commits
    /// nothing, as the update would be refused anyway.
    func wipeOnDeviceChange(wipeWriters: Bool, isAvailable: (Accessibility) -> Bool) {
        table.withLock { table in
            table.deviceChanges &+= 1
            table.plaintexts.wipeAll()
            for (id, var handle) in table.handles where handle.snapshot != nil || handle.writable {
                if !handle.writable {
                    handle.snapshot?.wipe()
                    handle.snapshot = nil
                    handle.freshFromOpen = false
                } else if wipeWriters, let accessibility = handle.item.accessibility, !isAvailable(accessibility) {
                    if handle.buffer != nil { Sodium.wipe(&handle.buffer!) }
                    handle.buffer = nil
                    handle.dirty = false
                    handle.failure = EACCES
                }
                table.handles[id] = handle
            }
        }
    }

    /// Inserts a reader of `content` (fetched when ``deviceChanges()`` was `seen`), which its first read
    /// returns; when `pageCacheable` and no writer holds its item (checked under the lock a writer's insert
    /// takes, so a writer arriving at the same moment sees this reader), it is served from the page cache
    /// instead. A content fetched before a device change is wiped, not kept: the first read fetches again.
    /// Inserts a reader served from the page cache, which keeps no copy of the value (its READs fetch it
    /// through the lock check): nil, and nothing inserted, while a writer holds the item open (then the
    /// reader takes a copy, ``insertReader(_:content:fetchedAfter:pageCacheable:)``).
    func insertPageCachedReader(_ handle: Handle) throws(FSError) -> UInt64? {
        let id = newID()
        let inserted = try table.withLock { table throws(FSError) -> Bool in
            guard table.writers[handle.item.persistentRef] == nil else { return false }
            var reader = handle
            reader.pageCached = true
            try table.add(reader, id: id)
            return true
        }
        return inserted ? id : nil
    }

    func insertReader(_ handle: Handle, content: consuming Data, fetchedAfter seen: UInt64, pageCacheable: Bool)
        throws(FSError) -> (id: UInt64, pageCached: Bool)
    {
        let id = newID()
        var handedOver: Data? = consume content
        let cached = try table.withLock { table throws(FSError) -> Bool in
            var fetched = handedOver!
            handedOver = nil
            var reader = handle
            let cached = pageCacheable && table.writers[handle.item.persistentRef] == nil
            if cached || table.deviceChanges != seen {
                Sodium.wipe(&fetched)
                reader.pageCached = cached
            } else {
                reader.snapshot = try table.plaintexts.share(
                    consume fetched, item: handle.item.persistentRef, file: handle.file, user: handle.user,
                    budget: budget)
                reader.freshFromOpen = true
            }
            try table.add(reader, id: id)
            return cached
        }
        return (id, cached)
    }

    /// Waits until no reader served from the page cache that opened within the last `recent` seconds holds
    /// `reference` open. A writer's O_TRUNC empties the file's size in the kernel and its writes grow it at
    /// once; a page-cached reader in the middle of its read would see an empty or zero-padded value. Readers
    /// that open while a writer exists go to the daemon instead (``insertReader(_:pageCacheable:)``), and a fresh reader
    /// (`cat`) closes within milliseconds: the writer's OPEN waits for those. A descriptor held open longer
    /// sees the rewrite as it would on any file (docs/filesystem.md, "The kernel's cache and the lock").
    func awaitPageCachedReaders(of reference: Data, recent: TimeInterval) {
        let window = UInt64(recent * 1e9)
        while table.withLock({ table in
            let now = DispatchTime.now().uptimeNanoseconds
            return table.handles.values.contains {
                $0.pageCached && $0.item.persistentRef == reference && now - $0.openedAt < window
            }
        }) {
            usleep(500)
        }
    }

    /// Removes a handle; the caller commits a dirty buffer and wipes it.
    func remove(_ id: UInt64) -> Handle? {
        table.withLock { $0.remove(id) }
    }

    /// Removes a handle open only for reading (nil, and nothing removed, for any other).
    func removeReader(_ id: UInt64) -> Handle? {
        table.withLock { table in
            guard let handle = table.handles[id], !handle.writable else { return nil }
            return table.remove(id)
        }
    }
}
