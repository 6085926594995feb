import Foundation
import KeychainEngine
import SodiumCrypto

/// `value` files: every read checks the lock; writes are buffered and committed atomically at close.
extension KeychainView {
    func open(_ path: FSPath, flags: Int32, authorization: Data? = nil) throws(FSError) -> UInt64 {
        guard case .file(let item, let file) = try resolve(path) else { throw FSError(EISDIR, "only an item's files can be opened") }
        let writable = flags & O_ACCMODE != O_RDONLY
        if writable { try requireWritable(item.schema) }
        let truncating = flags & O_TRUNC != 0
        // Reading the content now refuses the open itself while the item is unavailable (a truncating
        // writer reads nothing, so it checks the lock itself).
        if writable && truncating { _ = try checkAvailable(item, file) }
        let buffer = writable ? (truncating ? Data() : try secret(of: item, authorization: authorization))
            : try content(of: item, file, authorization: authorization)
        var handle = OpenFiles.Handle(item: item, file: file, writable: writable, append: flags & O_APPEND != 0, buffer: buffer,
                                      dirty: writable && truncating, failure: nil)
        handle.authorization = authorization
        handle.freshFromOpen = !writable
        return openFiles.insert(handle)
    }

    /// Every read checks the lock at that moment. A reader keeps one version from offset 0 to the end
    /// (taken at open for its first pass, read again when it starts over), so a rewrite never shows it a mix.
    func read(_ handle: UInt64, offset: Int, size: Int) throws(FSError) -> Data {
        let (item, file, writable, snapshot, authorization) = try openFiles.with(handle) { h throws(FSError) in
            let usable = h.freshFromOpen || offset > 0
            h.freshFromOpen = false
            return (h.item, h.file, h.writable, usable ? h.buffer : nil, h.authorization)
        }
        let content: Data
        if writable {
            // A writer reads back its own buffer, and only while the item's class is available.
            if guards.wipeWriters { _ = try checkAvailable(item, file) }
            content = try openFiles.with(handle) { h throws(FSError) in
                if let failure = h.failure { throw FSError(failure, "the device locked while the file was open: nothing was kept") }
                return h.buffer ?? Data()
            }
        } else if let snapshot, try checkAvailable(item, file) {
            content = snapshot
        } else {
            let current = try self.content(of: item, file, authorization: authorization)
            try openFiles.with(handle) { h throws(FSError) in
                if h.buffer != nil { Sodium.wipe(&h.buffer!) }
                h.buffer = current
            }
            content = current
        }
        guard offset < content.count else { return Data() }
        return content.subdata(in: content.startIndex + offset..<content.startIndex + min(content.count, offset + size))
    }

    func write(_ handle: UInt64, offset: Int, data: Data, owner: UInt64) throws(FSError) -> Int {
        try openFiles.with(handle) { h throws(FSError) -> Int in
            if h.writable, let failure = h.failure, failure == EACCES { throw FSError(failure, "the device locked while the file was open") }
            guard h.writable, var buffer = h.buffer else { throw FSError(EBADF, "not open for writing") }
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

    func truncate(_ path: FSPath, size: Int, handle: UInt64?) throws(FSError) {
        guard size <= Self.maxValueBytes else {
            if let handle { try openFiles.with(handle) { h throws(FSError) in h.failure = EFBIG } }
            throw FSError(EFBIG, "a value is at most 1 MiB")
        }
        if let handle {
            try openFiles.with(handle) { h throws(FSError) in
                guard h.writable, var buffer = h.buffer else { throw FSError(EBADF, "not open for writing") }
                if h.failure != nil { return }
                buffer = resized(buffer, to: size)
                h.buffer = buffer
                h.dirty = true
            }
            return
        }
        guard case .file(let item, _) = try resolve(path) else { throw FSError(EISDIR, "only an item's files can be truncated") }
        try requireWritable(item.schema)
        var current = try secret(of: item)
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
            guard let writer = h.writerOwner, writer == owner else { return nil }
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

    func release(_ handle: UInt64) throws(FSError) {
        guard var h = openFiles.remove(handle) else { return }
        defer {
            if h.buffer != nil { Sodium.wipe(&h.buffer!) }
            if let token = h.authorization { endAuthorization(token) }
        }
        if h.dirty, h.failure == nil, let buffer = h.buffer { try commit(buffer, to: h.item, authorization: h.authorization) }
    }
}
