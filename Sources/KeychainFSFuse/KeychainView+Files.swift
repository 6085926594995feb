import Foundation
import KeychainFSEngine
import KeychainFSModel
import Logging
import KeychainFSSodium

/// `value` files: every read checks the lock; writes are buffered and committed atomically at close.
extension KeychainView {
    /// Opens a file. `mayPageCache`: the caller would let the kernel keep a reader's
    /// pages; the answer says whether this open's reads fill the page cache (``servesFromPageCache``).
    /// `user`: whose open it is (the cap of ``OpenFiles/maxHandlesPerUser``).
    func open(
        _ path: FSPath, flags: Int32, authorization: Data? = nil, mayPageCache: Bool = false,
        user: UInt32
    ) throws(FSError) -> (handle: UInt64, pageCached: Bool) {
        try open(
            try resolve(path), flags: flags, authorization: authorization, mayPageCache: mayPageCache, user: user)
    }

    /// ``open(_:flags:authorization:mayPageCache:user:)`` of what a path resolved to a moment ago.
    func open(
        _ node: FSNode, flags: Int32, authorization: Data? = nil, mayPageCache: Bool = false,
        user: UInt32
    ) throws(FSError) -> (handle: UInt64, pageCached: Bool) {
        guard case .file(let item, let file) = node else {
            throw FSError(EISDIR, "only an item's files can be opened")
        }
        let writable = flags & O_ACCMODE != O_RDONLY
        if writable { try requireWritable(item.schema) }
        // Nothing was written to it yet: no secret to read, not an empty one (docs/filesystem.md).
        if item.inTheMaking && !writable {
            _ = try checkAvailable(item, file)  // while locked, EACCES as for any item of its class
            throw FSError(ENODATA, "the item's value has not been written yet")
        }
        var handle = OpenFiles.Handle(
            item: item, file: file, writable: writable, append: flags & O_APPEND != 0, buffer: nil,
            dirty: false, failure: nil)
        handle.authorization = authorization
        handle.user = user
        if writable {
            // A writer reads the value only when it needs it (a truncating one never does), so the lock
            // is checked here. O_TRUNC in the flags (a kernel with ATOMIC_O_TRUNC) truncates now.
            _ = try checkAvailable(item, file)
            if flags & O_TRUNC != 0 { (handle.buffer, handle.loaded, handle.dirty) = (Data(), true, true) }
        } else {
            // A value the page cache may hold is not decrypted here: its length answers the read policy (the
            // lock, the groups, withheld secrets) and a READ fetches it through the lock check. Decrypted
            // only to be wiped, it was half of an OPEN's work (measured).
            if mayPageCache, mayServeFromPageCache(item),
                try contentLength(of: item, file) <= Self.pageCachedBytes,
                let id = try openFiles.insertPageCachedReader(handle)
            {
                return (id, true)
            }
            // Reading the content now refuses the open itself while the item is unavailable.
            let seen = openFiles.deviceChanges()
            let (content, version) = try versionedContent(of: item, file, authorization: authorization)
            let cacheable = mayPageCache && servesFromPageCache(item, size: content.count)
            handle.version = version
            let (id, cached) = try openFiles.insertReader(
                handle, content: consume content, fetchedAfter: seen, pageCacheable: cacheable)
            return (id, cached)
        }
        let id = try openFiles.insert(handle)
        if writable {
            openFiles.awaitPageCachedReaders(of: item.persistentRef, recent: 1)
            // The device may have locked while this open waited: then it fails, as it would have at once.
            do throws(FSError) { try openFiles.with(id) { h throws(FSError) in try Self.checkFailure(h) } } catch {
                _ = openFiles.remove(id)
                throw error
            }
        }
        return (id, false)
    }

    /// Whether a reader may be served from the kernel's page cache (docs/spec.md §4 gatekeeper path): an item
    /// without access control whose file fits in one page (and, decided as it is inserted, that no writer
    /// holds open). A page is filled
    /// by one READ, so a reader never sees two versions mixed; a longer file's pages could come from two
    /// versions around an update. A writer's writes change the file's size in the kernel at once, so
    /// readers that open meanwhile go to the daemon (direct_io).
    private func servesFromPageCache(_ item: FSItem, size: Int) -> Bool {
        size <= Self.pageCachedBytes && mayServeFromPageCache(item)
    }

    /// ``servesFromPageCache(_:size:)`` but for the size.
    private func mayServeFromPageCache(_ item: FSItem) -> Bool {
        !item.schema.isVirtual && !Keychain.needsAuthorization(item.attributes)
    }

    /// The largest file kept in the page cache: one page.
    static let pageCachedBytes = 4096

    /// How often one READ fetches a value that device changes keep wiping before it gives up (EAGAIN):
    /// each fetch checks the lock, so the bound only stops a read from chasing a lock/unlock storm forever.
    static let fetchesPerRead = 8

    /// Every read checks the lock at that moment. A reader keeps one version from offset 0 to the end
    /// (taken at open for its first pass, read again when it starts over), so a rewrite never shows it a mix;
    /// a page-cached reader reads the item as it is now (its pages are dropped on every change).
    func read(_ handle: UInt64, offset: Int, size: Int) throws(FSError) -> Data {
        let (item, file, writable, pageCached, snapshot, authorization) = try openFiles.with(handle) {
            h throws(FSError) in
            let usable = h.freshFromOpen || offset > 0
            h.freshFromOpen = false
            return (h.item, h.file, h.writable, h.pageCached, usable ? h.snapshot : nil, h.authorization)
        }
        let content: Data
        if writable {
            // A writer reads back its own buffer, and only while the item's class is available.
            if guards.wipeWriters { _ = try checkAvailable(item, file) }
            content = try loadedBuffer(handle) ?? Data()
        } else if pageCached {
            var current = try self.content(of: item, file, authorization: authorization)
            defer { Sodium.wipe(&current) }
            return Self.slice(current, offset: offset, size: size)
        } else {
            if let snapshot, try checkAvailable(item, file), let slice = snapshot.slice(offset: offset, size: size) {
                return slice
            }
            // A device change (an unlock too) after the fetch makes the copy unusable (``OpenFiles/keep``):
            // fetch again, through the lock check, so only an item whose class is now locked is refused (an
            // AfterFirstUnlock item read across a lock or an unlock was refused here once).
            for _ in 0..<Self.fetchesPerRead {
                let seen = openFiles.deviceChanges()
                let (fetched, version) = try versionedContent(of: item, file, authorization: authorization)
                if let slice = try openFiles.keep(
                    consume fetched, version: version, oneVersion: guards.oneVersionPerRead, fetchedAfter: seen,
                    reader: handle, offset: offset, size: size)
                {
                    return slice
                }
            }
            throw FSError(EAGAIN, "the device changed state during each of \(Self.fetchesPerRead) fetches of the value")
        }
        return Self.slice(content, offset: offset, size: size)
    }

    /// The attributes of an open file (`fstat`, and the kernel's size check before a read): of the item it
    /// opened, wherever that item is named now, read now (so EACCES while its class is locked).
    func attributes(ofHandle handle: UInt64) throws(FSError) -> FileAttributes {
        let (item, file) = try openFiles.with(handle) { h throws(FSError) in (h.item, h.file) }
        return try fileAttributes(item, file)
    }

    static func slice(_ content: Data, offset: Int, size: Int) -> Data {
        guard offset < content.count else { return Data() }
        return content.subdata(in: content.startIndex + offset..<content.startIndex + min(content.count, offset + size))
    }

    /// A writer's buffer, holding the item's value once a read or partial write needs it (nil: the
    /// device locked while the file was open, nothing was kept).
    private func loadedBuffer(_ handle: UInt64) throws(FSError) -> Data? {
        let (item, loaded, authorization) = try openFiles.with(handle) { h throws(FSError) in
            try Self.checkFailure(h)
            return (h.item, h.loaded, h.authorization)
        }
        // Read outside the table's lock; a concurrent load or write of the same handle wins.
        var value = loaded ? nil : try content(of: item, .value, authorization: authorization)
        defer { if value != nil { Sodium.wipe(&value!) } }
        return try openFiles.with(handle) { h throws(FSError) in
            try Self.checkFailure(h)
            if !h.loaded, let value { (h.buffer, h.loaded) = (value, true) }
            return h.buffer
        }
    }

    private static func checkFailure(_ h: OpenFiles.Handle) throws(FSError) {
        guard let failure = h.failure else { return }
        throw FSError(
            failure,
            failure == EACCES
                ? "the device locked while the file was open: nothing was kept" : "an earlier write failed")
    }

    func write(_ handle: UInt64, offset: Int, data: Data, owner: UInt64) throws(FSError) -> Int {
        let (writable, loaded) = try openFiles.with(handle) { h throws(FSError) in
            if h.writable, let failure = h.failure, failure == EACCES {
                throw FSError(failure, "the device locked while the file was open")
            }
            return (h.writable, h.loaded)
        }
        guard writable else { throw FSError(EBADF, "not open for writing") }
        if !loaded { _ = try loadedBuffer(handle) }
        return try openFiles.with(handle) { h throws(FSError) -> Int in
            guard var buffer = h.buffer else { throw FSError(EACCES, "the device locked while the file was open") }
            h.writerOwner = owner
            let start = h.append ? buffer.count : offset
            guard start + data.count <= Self.maxValueBytes else {
                h.failure = EFBIG
                throw FSError(EFBIG, "a value is at most 1 MiB")
            }
            if buffer.count < start { buffer.append(Data(count: start - buffer.count)) }
            buffer.replaceSubrange(start..<min(buffer.count, start + data.count), with: data)
            h.buffer = buffer
            h.dirty = true
            return data.count
        }
    }

    /// `handle`: the open file to truncate (`ftruncate`, or the truncation of an `open(O_TRUNC)`); nil
    /// truncates the item's value now (`truncate(1)`).
    func truncate(_ path: FSPath, size: Int, handle: UInt64?) throws(FSError) {
        guard size <= Self.maxValueBytes else {
            if let handle { try openFiles.with(handle) { h throws(FSError) in h.failure = EFBIG } }
            throw FSError(EFBIG, "a value is at most 1 MiB")
        }
        guard case .file(let item, _) = try resolve(path) else {
            throw FSError(EISDIR, "only an item's files can be truncated")
        }
        if let handle {
            if size > 0 { _ = try loadedBuffer(handle) }
            try openFiles.with(handle) { h throws(FSError) in
                guard h.writable else { throw FSError(EBADF, "not open for writing") }
                if h.failure != nil { return }
                h.buffer = resized(h.buffer ?? Data(), to: size)
                (h.loaded, h.dirty) = (true, true)
                // An explicit ftruncate is the writer's own change: its close commits it, as a write's does
                // (committed at RELEASE instead, it would land after close() returned).
                if h.writerOwner == nil { h.writerOwner = OpenFiles.Handle.anyOwner }
            }
            return
        }
        try requireWritable(item.schema)
        var current = try content(of: item, .value)
        defer { Sodium.wipe(&current) }
        try commit(resized(current, to: size), to: item)
    }

    private func resized(_ data: Data, to size: Int) -> Data {
        data.count >= size ? data.prefix(size) : data + Data(count: size - data.count)
    }

    /// Commits a writer's buffer at its close(). The kernel flushes on every close of any copy of the
    /// descriptor; a copy in another descriptor table (a forked child) closing is not the writer's close.
    func flush(_ handle: UInt64, owner: UInt64) throws(FSError) {
        let pending = try openFiles.with(handle) { h throws(FSError) -> (FSItem, Data, Data?)? in
            // Before any write, a flush is a shell closing its copy after dup2 (`printf s > value`):
            // committing the truncation then would show readers an empty secret between old and new.
            // A truncation without any write (`: > value`) is committed at release instead.
            guard let writer = h.writerOwner, writer == owner || writer == OpenFiles.Handle.anyOwner else { return nil }
            if let failure = h.failure {
                h.dirty = false
                throw FSError(failure, "an earlier write failed: nothing was committed")
            }
            guard h.dirty, let buffer = h.buffer else { return nil }
            h.dirty = false
            return (h.item, buffer, h.authorization)
        }
        if let (item, data, authorization) = pending { try commit(data, to: item, authorization: authorization) }
    }

    /// Closes a handle without committing anything: an open refused after the fact (its audit line failed).
    func discard(_ handle: UInt64) {
        guard var h = openFiles.remove(handle) else { return }
        finish(&h)
    }

    /// What every handle leaving the table needs: its buffer wiped, its authorization ended.
    private func finish(_ h: inout OpenFiles.Handle) {
        if h.buffer != nil { Sodium.wipe(&h.buffer!) }
        if let token = h.authorization { endAuthorization(token) }
    }

    /// Releases `handle` if it was open only for reading (it commits nothing): true; false leaves any other
    /// handle to ``release(_:)``.
    func releaseReader(_ handle: UInt64) -> Bool {
        guard var h = openFiles.removeReader(handle) else { return false }
        finish(&h)
        return true
    }

    func release(_ handle: UInt64) throws(FSError) {
        guard var h = openFiles.remove(handle) else { return }
        defer { finish(&h) }
        if h.dirty, h.failure == nil, let buffer = h.buffer {
            try commit(buffer, to: h.item, authorization: h.authorization)
        }
    }
}

/// The kernel-cache read path (docs/spec.md §4): READs that name only an inode.
extension KeychainView {
    /// Why this view cannot be served on the kernel-cache path, or nil: whatever must see each open.
    package var kernelCacheRefusal: String? {
        if answersPerCaller { return "while the vault's access.toml has rules" }
        if accessPolicy?.strict == true { return "with --strict" }
        if audit != nil { return "with an audit log" }
        return nil
    }

    /// A READ of a file no OPEN was sent for: the lock is checked now (``content(of:_:authorization:)``)
    /// after ``checkKernelCacheRead(_:log:)``.
    func readUnopened(_ path: FSPath, offset: Int, size: Int, log: Logger) throws(FSError) -> Data {
        try checkKernelCacheRead(path, log: log)
        guard case .file(let item, let file) = try resolve(path) else {
            throw FSError(EISDIR, "only an item's files can be read")
        }
        var content = try content(of: item, file)
        defer { Sodium.wipe(&content) }
        return Self.slice(content, offset: offset, size: size)
    }

    /// What the kernel-cache path refuses, at LOOKUP, GETATTR and READ: values with access control (no
    /// prompt could be attributed to anyone; refused at lookup, since their size of 0 would end a read
    /// before any READ), and every file once access rules appear in `access.toml` after the mount (the
    /// kernel would serve one caller's pages to another).
    func checkKernelCacheRead(_ path: FSPath, log: Logger) throws(FSError) {
        guard path.components.count == 4, case .file(let item, let file) = try resolve(path) else { return }
        if let reason = kernelCacheRefusal {
            log.error("read refused on a --kernel-cache mount \(reason): remount without --kernel-cache")
            throw FSError(EACCES, "access rules need the gatekeeper path")
        }
        if file == .value, Keychain.needsAuthorization(item.attributes) {
            log.notice("a value with access control refused on a --kernel-cache mount (EACCES)")
            throw FSError(EACCES, "values with access control are not readable through --kernel-cache")
        }
    }
}
