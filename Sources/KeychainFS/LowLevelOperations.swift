import CFuse
import Foundation
import ItemNaming
import KeychainEngine
import KeychainModel
import Logging

/// libfuse's low-level callback table: each request names inodes; the ``NodeTable`` turns them into
/// paths, the ``KeychainView`` answers, and the reply says what the kernel may cache. No keychain
/// logic lives here.
enum LowLevelOperations {
    static func table() -> fuse_lowlevel_ops {
        var ops = fuse_lowlevel_ops()
        ops.`init` = { userdata, connection in
            // O_TRUNC arrives with OPEN, so `> value` replaces the value in one commit. The kernel then
            // empties the inode's size and pages at once; readers served from the page cache are gone by
            // then (a writer's OPEN waits for them) and readers that open meanwhile are direct_io.
            connection!.pointee.want |= UInt32(FUSE_CAP_ATOMIC_O_TRUNC)
        }
        ops.lookup = { req, parent, name in
            LowLevelOperations.serve(req, "lookup") { c throws(FSError) in
                let path = try c.path(parent, name!)
                if c.readPath == .kernelCache { try c.view.checkKernelCacheRead(path, log: c.log) }
                var entry: fuse_entry_param
                do throws(FSError) {
                    let attributes = try c.view.attributes(path)
                    c.noteServed(attributes)
                    entry = c.entry(attributes)
                } catch where error.errno == EACCES {
                    // A locked value exists (rm -r may unlink it) but shows nothing: stat asks again, EACCES.
                    guard let unavailable = try c.view.unavailableFile(path) else { throw error }
                    entry = c.entry(unavailable)
                    entry.attr_timeout = 0
                }
                c.nodes.remember(entry.ino, parent: parent, name: path.components.last ?? [])
                fuse_reply_entry(req, &entry)
            }
        }
        ops.forget = { req, inode, count in
            LowLevelOperations.context(req).nodes.forget(inode, count)
            fuse_reply_none(req)
        }
        ops.forget_multi = { req, count, forgets in
            let c = LowLevelOperations.context(req)
            for i in 0..<count { c.nodes.forget(forgets![i].ino, forgets![i].nlookup) }
            fuse_reply_none(req)
        }
        ops.getattr = { req, inode, info in
            LowLevelOperations.serve(req, "getattr") { c throws(FSError) in
                // An open file's attributes come from its handle (the item it opened, even if renamed since).
                if let handle = info?.pointee.fh, handle != 0, c.readPath == .gatekeeper {
                    let attributes = try c.view.attributes(ofHandle: handle)
                    c.noteServed(attributes)
                    var st = StatFormat.stat(attributes)
                    fuse_reply_attr(req, &st, c.cacheSeconds)
                    return
                }
                let path = try c.path(inode)
                if c.readPath == .kernelCache { try c.view.checkKernelCacheRead(path, log: c.log) }
                try c.replyAttributes(req, path)
            }
        }
        ops.setattr = { req, inode, attr, toSet, info in
            LowLevelOperations.serve(req, "setattr") { c throws(FSError) in
                let path = try c.path(inode)
                if toSet & (FUSE_SET_ATTR_MODE | FUSE_SET_ATTR_UID | FUSE_SET_ATTR_GID) != 0 {
                    throw FSError(EPERM, "modes and owners come from the mount")
                }
                if toSet & FUSE_SET_ATTR_SIZE != 0 {
                    try c.view.truncate(path, size: Int(attr!.pointee.st_size), handle: info.map { $0.pointee.fh })
                }
                // touch works and changes nothing: times come from the keychain's dates.
                try c.replyAttributes(req, path)
            }
        }
        ops.mkdir = { req, parent, name, _ in
            LowLevelOperations.serve(req, "mkdir") { c throws(FSError) in
                let path = try c.path(parent, name!)
                // A test vault's daemon may die here with a thread stuck behind this mkdir's directory lock.
                CrashPoint.reach("mkdir.whileItsDirectoryIsInvalidated") {
                    c.cache.invalidateEntryInBackground(parent: parent, name: Array(path.components.last ?? []))
                    usleep(300_000)
                }
                try c.view.makeDirectory(path)
                let attributes = try c.view.attributes(path)
                c.nodes.remember(attributes.inode, parent: parent, name: path.components.last ?? [])
                var entry = c.entry(attributes)
                fuse_reply_entry(req, &entry)
            }
        }
        ops.rmdir = { req, parent, name in
            LowLevelOperations.serve(req, "rmdir") { c throws(FSError) in
                try c.view.removeDirectory(try c.path(parent, name!))
                fuse_reply_err(req, 0)
            }
        }
        ops.unlink = { req, parent, name in
            LowLevelOperations.serve(req, "unlink") { c throws(FSError) in
                try c.view.unlink(try c.path(parent, name!), by: fuse_req_ctx(req)!.pointee.pid)
                fuse_reply_err(req, 0)
            }
        }
        ops.rename = { req, parent, name, newParent, newName, flags in
            LowLevelOperations.serve(req, "rename") { c throws(FSError) in
                let renameExchange: UInt32 = 2
                guard flags & renameExchange == 0 else { throw FSError(EINVAL, "exchanging items is not supported") }
                let from = try c.path(parent, name!), to = try c.path(newParent, newName!)
                let inode = try c.view.attributes(from).inode
                try c.view.rename(from, to: to)
                c.nodes.move(inode, to: newParent, name: to.components.last ?? [])
                fuse_reply_err(req, 0)
            }
        }
        ops.mknod = { req, parent, name, _, _ in
            LowLevelOperations.serve(req, "mknod") { c throws(FSError) in try c.view.create(try c.path(parent, name!)) }
        }
        ops.create = { req, parent, name, _, _ in
            LowLevelOperations.serve(req, "create") { c throws(FSError) in try c.view.create(try c.path(parent, name!)) }
        }
        ops.symlink = { req, _, _, _ in fuse_reply_err(req, EPERM) }
        ops.link = { req, _, _, _ in fuse_reply_err(req, EPERM) }
        ops.open = { req, inode, info in
            // The kernel-cache path: ENOSYS once, and the kernel never sends OPEN (nor RELEASE) again.
            if LowLevelOperations.context(req).readPath == .kernelCache { fuse_reply_err(req, ENOSYS); return }
            if LowLevelOperations.openProtected(req, inode, info) { return }
            LowLevelOperations.serve(req, "open") { c throws(FSError) in
                let file = info!.pointee
                let path = try c.path(inode)
                let pageCached: Bool
                do throws(FSError) {
                    (info!.pointee.fh, pageCached) = try c.view.open(path, flags: file.flags, mayPageCache: true,
                                                                      user: fuse_req_ctx(req)!.pointee.uid)
                } catch {
                    try? c.recordOpen(req, path, error, rule: KeychainView.requestCaller?.grantedBy)
                    throw error
                }
                do throws(FSError) { try c.recordOpen(req, path, nil, rule: KeychainView.requestCaller?.grantedBy) } catch {
                    c.view.discard(info!.pointee.fh)  // an open that cannot be recorded is refused
                    throw error
                }
                // Unprotected readers keep the value in the page cache (docs/spec.md §4 gatekeeper path): later
                // opens cost this OPEN and a copy. Writers are direct_io, so their writes never reach the
                // pages readers share; they commit at close, and the commit drops the pages (KernelCache).
                info!.pointee.direct_io = pageCached ? 0 : 1
                info!.pointee.keep_cache = pageCached ? 1 : 0
                // Readers commit nothing at close: spare them the FLUSH round trip. Writers commit there.
                info!.pointee.noflush = file.flags & O_ACCMODE == O_RDONLY ? 1 : 0
                c.cache.noteServed(inode)
                fuse_reply_open(req, info)
            }
        }
        ops.read = { req, inode, size, offset, info in
            LowLevelOperations.serve(req, "read") { c throws(FSError) in
                // Any READ may fill a page (a mapping's fault, splice, sendfile, even through a direct_io
                // handle mapped MAP_PRIVATE): noted before the lock is checked, so the next device change
                // drops what it filled (``KernelCache``).
                c.cache.noteServed(inode)
                let data: Data
                if c.readPath == .kernelCache {
                    // No OPEN: the request names only the inode. The lock is checked here, on every page fill.
                    data = try c.view.readUnopened(try c.path(inode), offset: Int(offset), size: size, log: c.log)
                } else {
                    data = try c.view.read(info!.pointee.fh, offset: Int(offset), size: size)
                }
                data.withUnsafeBytes { bytes in
                    _ = fuse_reply_buf(req, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
                }
            }
        }
        ops.write = { req, _, buffer, size, offset, info in
            LowLevelOperations.serve(req, "write") { c throws(FSError) in
                let count = try c.view.write(info!.pointee.fh, offset: Int(offset), data: Data(bytes: buffer!, count: size),
                                             owner: info!.pointee.lock_owner)
                fuse_reply_write(req, count)
            }
        }
        ops.flush = { req, _, info in
            // Nothing to commit on the kernel-cache path (a read-only mount): ENOSYS, and no FLUSH comes again.
            if LowLevelOperations.context(req).readPath == .kernelCache { fuse_reply_err(req, ENOSYS); return }
            LowLevelOperations.serve(req, "flush") { c throws(FSError) in
                try c.view.flush(info!.pointee.fh, owner: info!.pointee.lock_owner)
                fuse_reply_err(req, 0)
            }
        }
        ops.fsync = { req, _, _, info in
            LowLevelOperations.serve(req, "fsync") { c throws(FSError) in
                try c.view.flush(info!.pointee.fh, owner: info!.pointee.lock_owner)
                fuse_reply_err(req, 0)
            }
        }
        ops.release = { req, _, info in
            LowLevelOperations.serve(req, "release") { c throws(FSError) in
                try c.view.release(info!.pointee.fh)
                fuse_reply_err(req, 0)
            }
        }
        ops.opendir = { req, inode, info in
            LowLevelOperations.serve(req, "opendir") { c throws(FSError) in
                // Listed at the first READDIR, not here: a listing counts toward `rm -r`'s unlink rule, and
                // opening a directory (fstat, fchdir, O_DIRECTORY) is not listing it.
                _ = try c.view.resolve(try c.path(inode))
                info!.pointee.fh = c.directories.open()
                fuse_reply_open(req, info)
            }
        }
        ops.readdir = { req, inode, size, offset, info in
            LowLevelOperations.serve(req, "readdir") { c throws(FSError) in
                let handle = info!.pointee.fh
                let entries = try c.directories.entries(handle, offset: offset) { () throws(FSError) in
                    try c.view.list(try c.path(inode), by: fuse_req_ctx(req)!.pointee.pid)
                }
                var buffer = [CChar](repeating: 0, count: size)
                var used = 0
                var index = Int(offset)
                // Offsets 0 and 1 are `.` and `..`; entry i is offset i + 2.
                while index < entries.count + 2 {
                    let (name, attributes): (String, FileAttributes?) = switch index {
                    case 0: (".", nil)
                    case 1: ("..", nil)
                    default: (entries[index - 2].name, entries[index - 2].attributes)
                    }
                    var st = stat()
                    st.st_mode = attributes.map { $0.isDirectory ? S_IFDIR : S_IFREG } ?? S_IFDIR
                    st.st_ino = __ino_t(attributes?.inode ?? (index == 0 ? inode : Inode.root))
                    let needed = buffer.withUnsafeMutableBufferPointer { bytes in
                        fuse_add_direntry(req, bytes.baseAddress! + used, size - used, name, &st, off_t(index + 1))
                    }
                    if used + needed > size { break }
                    used += needed
                    index += 1
                }
                fuse_reply_buf(req, buffer, used)
            }
        }
        ops.releasedir = { req, _, info in
            LowLevelOperations.context(req).directories.remove(info!.pointee.fh)
            fuse_reply_err(req, 0)
        }
        ops.statfs = { req, _ in
            var st = statvfs()
            st.f_bsize = 4096
            st.f_frsize = 4096
            st.f_namemax = UInt(ItemNaming.maxNameBytes)
            fuse_reply_statfs(req, &st)
        }
        ops.getxattr = { req, inode, name, size in
            LowLevelOperations.serve(req, "getxattr") { c throws(FSError) in
                c.replyXattr(req, try c.view.getXattr(try c.path(inode), String(cString: name!)), size: size)
            }
        }
        ops.listxattr = { req, inode, size in
            LowLevelOperations.serve(req, "listxattr") { c throws(FSError) in
                let names = try c.view.listXattrs(try c.path(inode))
                c.replyXattr(req, Data(names.flatMap { Array($0.utf8) + [0] }), size: size)
            }
        }
        ops.setxattr = { req, inode, name, value, size, flags in
            LowLevelOperations.serve(req, "setxattr") { c throws(FSError) in
                try c.view.setXattr(try c.path(inode), String(cString: name!), Data(bytes: value!, count: size), flags: flags)
                fuse_reply_err(req, 0)
            }
        }
        ops.removexattr = { req, inode, name in
            LowLevelOperations.serve(req, "removexattr") { c throws(FSError) in
                try c.view.removeXattr(try c.path(inode), String(cString: name!))
                fuse_reply_err(req, 0)
            }
        }
        ops.access = { req, inode, _ in
            LowLevelOperations.serve(req, "access") { c throws(FSError) in
                _ = try c.view.resolve(try c.path(inode))
                fuse_reply_err(req, 0)
            }
        }
        return ops
    }

    static func context(_ req: fuse_req_t?) -> LowLevelContext {
        Unmanaged<LowLevelContext>.fromOpaque(fuse_req_userdata(req)!).takeUnretainedValue()
    }

    /// Per-application access: who the request runs as (docs/spec.md §12); nil when no rules apply (the mount's caller).
    static func requestCaller(_ req: fuse_req_t?, _ c: LowLevelContext) throws(FSError) -> Caller? {
        guard let policy = c.view.accessPolicy, policy.strict || policy.hasRules else { return nil }
        let context = fuse_req_ctx(req)!.pointee
        guard let caller = c.view.caller(pid: context.pid, uid: context.uid) else {
            throw FSError(EACCES, "strict access: no rule of access.toml matches this process")
        }
        return caller
    }

    /// Runs a request; a thrown error becomes its errno reply, logged by OSStatus (never a name or value).
    static func serve(_ req: fuse_req_t?, _ operation: StaticString, _ body: (LowLevelContext) throws(FSError) -> Void) {
        FuseThread.mark(operation)
        let c = context(req)
        do throws(FSError) {
            guard let caller = try requestCaller(req, c) else { return try body(c) }
            let result: Result<Void, FSError> = KeychainView.$requestCaller.withValue(caller) { Result { () throws(FSError) in try body(c) } }
            try result.get()
        } catch {
            if let status = error.status {
                let level: Logger.Level = status == SecStatus.itemNotFound ? .debug : .notice
                c.log.log(level: level, "\(operation) failed: \(SecStatus.name(of: status)) (\(status))")
            }
            fuse_reply_err(req, error.errno)
        }
    }
}
