import KeychainFSCFuse
import Foundation
import KeychainFSItemNaming
import KeychainFSEngine
import KeychainFSModel
import Logging

/// Entries and attributes of libfuse's low-level operations, one function each (registered in ``LowLevelOperations/table()``).
extension LowLevelOperations {
    /// INIT: what the mount asks of the kernel.
    static func initialize(_ userdata: UnsafeMutableRawPointer?, _ connection: UnsafeMutablePointer<fuse_conn_info>?) {
        // O_TRUNC arrives with OPEN, so `> value` replaces the value in one commit. The kernel then
        // empties the inode's size and pages at once; readers served from the page cache are gone by
        // then (a writer's OPEN waits for them) and readers that open meanwhile are direct_io.
        connection!.pointee.want |= UInt32(FUSE_CAP_ATOMIC_O_TRUNC)
    }

    /// LOOKUP: a name in a directory, as an entry the kernel may cache.
    static func lookup(_ req: fuse_req_t?, _ parent: fuse_ino_t, _ name: UnsafePointer<CChar>?) {
        serve(req, "lookup") { c throws(FSError) in
            let path = try c.path(parent, name!)
            if c.readPath == .kernelCache { try c.view.checkKernelCacheRead(path, log: c.log) }
            var entry: fuse_entry_param
            do throws(FSError) {
                let attributes = try c.view.attributes(path)
                c.noteServed(attributes)
                entry = c.entry(attributes)
            } catch let error where error.errno == EACCES {
                // A locked value exists (rm -r may unlink it) but shows nothing: stat asks again, EACCES.
                guard let unavailable = try c.view.unavailableFile(path) else { throw error }
                entry = c.entry(unavailable)
                entry.attr_timeout = 0
            }
            c.nodes.remember(entry.ino, parent: parent, name: path.components.last ?? [])
            fuse_reply_entry(req, &entry)
        }
    }

    /// FORGET: the kernel drops references to an inode.
    static func forget(_ req: fuse_req_t?, _ inode: fuse_ino_t, _ count: UInt64) {
        let c = context(req)
        c.nodes.forget(inode, count)
        if c.nodes.entry(inode) == nil { c.view.making.forget(inode: inode) }
        fuse_reply_none(req)
    }

    /// BATCH_FORGET: FORGET for many inodes at once.
    static func forgetMany(_ req: fuse_req_t?, _ count: Int, _ forgets: UnsafeMutablePointer<fuse_forget_data>?) {
        let c = context(req)
        for i in 0..<count {
            c.nodes.forget(forgets![i].ino, forgets![i].nlookup)
            if c.nodes.entry(forgets![i].ino) == nil { c.view.making.forget(inode: forgets![i].ino) }
        }
        fuse_reply_none(req)
    }

    /// GETATTR: an inode's attributes (an open file's from its handle).
    static func getattr(_ req: fuse_req_t?, _ inode: fuse_ino_t, _ info: UnsafeMutablePointer<fuse_file_info>?) {
        serve(req, "getattr") { c throws(FSError) in
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

    /// SETATTR: truncation only; modes, owners and times come from the keychain.
    static func setattr(
        _ req: fuse_req_t?, _ inode: fuse_ino_t, _ attr: UnsafeMutablePointer<stat>?, _ toSet: Int32,
        _ info: UnsafeMutablePointer<fuse_file_info>?
    ) {
        serve(req, "setattr") { c throws(FSError) in
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

    /// ACCESS: the path resolves for this caller.
    static func access(_ req: fuse_req_t?, _ inode: fuse_ino_t, _: Int32) {
        serve(req, "access") { c throws(FSError) in
            _ = try c.view.resolve(try c.path(inode))
            fuse_reply_err(req, 0)
        }
    }

    /// STATFS: block size and the longest name.
    static func statfs(_ req: fuse_req_t?, _: fuse_ino_t) {
        var st = statvfs()
        st.f_bsize = 4096
        st.f_frsize = 4096
        st.f_namemax = UInt(ItemNaming.maxNameBytes)
        fuse_reply_statfs(req, &st)
    }
}
