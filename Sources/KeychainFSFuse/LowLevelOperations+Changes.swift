import KeychainFSCFuse
import Foundation
import KeychainFSItemNaming
import KeychainFSEngine
import KeychainFSModel
import Logging

/// Changes to the tree of libfuse's low-level operations, one function each (registered in ``LowLevelOperations/table()``).
extension LowLevelOperations {
    /// MKDIR: a group directory or an item.
    static func mkdir(_ req: fuse_req_t?, _ parent: fuse_ino_t, _ name: UnsafePointer<CChar>?, _: mode_t) {
        serve(req, "mkdir") { c throws(FSError) in
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

    /// RMDIR: removes an item (its directory).
    static func rmdir(_ req: fuse_req_t?, _ parent: fuse_ino_t, _ name: UnsafePointer<CChar>?) {
        serve(req, "rmdir") { c throws(FSError) in
            try c.view.removeDirectory(try c.path(parent, name!))
            fuse_reply_err(req, 0)
        }
    }

    /// UNLINK: a value, as part of `rm -r` of its item.
    static func unlink(_ req: fuse_req_t?, _ parent: fuse_ino_t, _ name: UnsafePointer<CChar>?) {
        serve(req, "unlink") { c throws(FSError) in
            try c.view.unlink(try c.path(parent, name!), by: fuse_req_ctx(req)!.pointee.pid)
            fuse_reply_err(req, 0)
        }
    }

    /// RENAME: an item to a new name (its naming attributes change).
    static func rename(
        _ req: fuse_req_t?, _ parent: fuse_ino_t, _ name: UnsafePointer<CChar>?, _ newParent: fuse_ino_t,
        _ newName: UnsafePointer<CChar>?, _ flags: UInt32
    ) {
        serve(req, "rename") { c throws(FSError) in
            let renameExchange: UInt32 = 2
            guard flags & renameExchange == 0 else { throw FSError(EINVAL, "exchanging items is not supported") }
            let from = try c.path(parent, name!), to = try c.path(newParent, newName!)
            let inode = try c.view.attributes(from).inode
            try c.view.rename(from, to: to)
            c.nodes.move(inode, to: newParent, name: to.components.last ?? [])
            fuse_reply_err(req, 0)
        }
    }

    /// MKNOD: a new item's value file.
    static func mknod(_ req: fuse_req_t?, _ parent: fuse_ino_t, _ name: UnsafePointer<CChar>?, _: mode_t, _: dev_t) {
        serve(req, "mknod") { c throws(FSError) in try c.view.create(try c.path(parent, name!)) }
    }

    /// CREATE: a new item's value file.
    static func create(
        _ req: fuse_req_t?, _ parent: fuse_ino_t, _ name: UnsafePointer<CChar>?, _: mode_t,
        _: UnsafeMutablePointer<fuse_file_info>?
    ) {
        serve(req, "create") { c throws(FSError) in try c.view.create(try c.path(parent, name!)) }
    }

    /// SYMLINK: not in a keychain.
    static func symlink(_ req: fuse_req_t?, _: UnsafePointer<CChar>?, _: fuse_ino_t, _: UnsafePointer<CChar>?) {
        fuse_reply_err(req, EPERM)
    }

    /// LINK: not in a keychain.
    static func link(_ req: fuse_req_t?, _: fuse_ino_t, _: fuse_ino_t, _: UnsafePointer<CChar>?) {
        fuse_reply_err(req, EPERM)
    }
}
