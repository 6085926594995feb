import KeychainFSCFuse
import Foundation
import KeychainFSItemNaming
import KeychainFSEngine
import KeychainFSModel
import Logging

/// Value files of libfuse's low-level operations, one function each (registered in ``LowLevelOperations/table()``).
extension LowLevelOperations {
    /// OPEN: a value file (the gatekeeper path; the kernel-cache path has none).
    static func open(_ req: fuse_req_t?, _ inode: fuse_ino_t, _ info: UnsafeMutablePointer<fuse_file_info>?) {
        // The kernel-cache path: ENOSYS once, and the kernel never sends OPEN (nor RELEASE) again.
        if context(req).readPath == .kernelCache { fuse_reply_err(req, ENOSYS); return }
        AccessPolicy.asOneRequest { openResolved(req, inode, info) }
    }

    /// OPEN once the gatekeeper path is known: a protected value's prompt, or the ordinary open.
    private static func openResolved(
        _ req: fuse_req_t?, _ inode: fuse_ino_t, _ info: UnsafeMutablePointer<fuse_file_info>?
    ) {
        guard let ordinary = openProtected(req, inode, info) else { return }
        serve(req, "open", as: ordinary.caller) { c throws(FSError) in
            let file = info!.pointee
            let path = ordinary.path
            let pageCached: Bool
            do throws(FSError) {
                (info!.pointee.fh, pageCached) = try c.view.open(
                    ordinary.node, flags: file.flags, mayPageCache: true,
                    user: fuse_req_ctx(req)!.pointee.uid)
            } catch {
                try? c.recordOpen(req, path, error, caller: KeychainView.requestCaller)
                throw error
            }
            do throws(FSError) { try c.recordOpen(req, path, nil, caller: KeychainView.requestCaller) } catch {
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

    /// READ: bytes of a value, the lock checked on every page fill.
    static func read(
        _ req: fuse_req_t?, _ inode: fuse_ino_t, _ size: Int, _ offset: off_t,
        _ info: UnsafeMutablePointer<fuse_file_info>?
    ) {
        serve(req, "read") { c throws(FSError) in
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

    /// WRITE: into an open value, committed at close.
    static func write(
        _ req: fuse_req_t?, _: fuse_ino_t, _ buffer: UnsafePointer<CChar>?, _ size: Int, _ offset: off_t,
        _ info: UnsafeMutablePointer<fuse_file_info>?
    ) {
        serve(req, "write") { c throws(FSError) in
            let count = try c.view.write(
                info!.pointee.fh, offset: Int(offset), data: Data(bytes: buffer!, count: size),
                owner: info!.pointee.lock_owner)
            fuse_reply_write(req, count)
        }
    }

    /// FLUSH: commits an open value's writes.
    static func flush(_ req: fuse_req_t?, _: fuse_ino_t, _ info: UnsafeMutablePointer<fuse_file_info>?) {
        // Nothing to commit on the kernel-cache path (a read-only mount): ENOSYS, and no FLUSH comes again.
        if context(req).readPath == .kernelCache { fuse_reply_err(req, ENOSYS); return }
        serve(req, "flush") { c throws(FSError) in
            try c.view.flush(info!.pointee.fh, owner: info!.pointee.lock_owner)
            fuse_reply_err(req, 0)
        }
    }

    /// FSYNC: commits as FLUSH does.
    static func fsync(_ req: fuse_req_t?, _: fuse_ino_t, _: Int32, _ info: UnsafeMutablePointer<fuse_file_info>?) {
        serve(req, "fsync") { c throws(FSError) in
            try c.view.flush(info!.pointee.fh, owner: info!.pointee.lock_owner)
            fuse_reply_err(req, 0)
        }
    }

    /// RELEASE: the last close of an open value. A reader's commits nothing, so no caller is resolved for it
    /// (measured: asking the access policy is a system call, on every close of the gatekeeper loop).
    static func release(_ req: fuse_req_t?, _: fuse_ino_t, _ info: UnsafeMutablePointer<fuse_file_info>?) {
        FuseThread.mark("release")
        if context(req).view.releaseReader(info!.pointee.fh) {
            fuse_reply_err(req, 0)
            return
        }
        serve(req, "release") { c throws(FSError) in
            try c.view.release(info!.pointee.fh)
            fuse_reply_err(req, 0)
        }
    }
}
