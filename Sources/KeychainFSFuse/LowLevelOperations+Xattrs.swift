import KeychainFSCFuse
import Foundation
import KeychainFSItemNaming
import KeychainFSEngine
import KeychainFSModel
import Logging

/// Extended attributes of libfuse's low-level operations, one function each (registered in ``LowLevelOperations/table()``).
extension LowLevelOperations {
    /// GETXATTR: an attribute of an item.
    static func getxattr(_ req: fuse_req_t?, _ inode: fuse_ino_t, _ name: UnsafePointer<CChar>?, _ size: Int) {
        serve(req, "getxattr") { c throws(FSError) in
            c.replyXattr(req, try c.view.getXattr(try c.path(inode), String(cString: name!)), size: size)
        }
    }

    /// LISTXATTR: an item's attribute names.
    static func listxattr(_ req: fuse_req_t?, _ inode: fuse_ino_t, _ size: Int) {
        serve(req, "listxattr") { c throws(FSError) in
            let names = try c.view.listXattrs(try c.path(inode))
            c.replyXattr(req, Data(names.flatMap { Array($0.utf8) + [0] }), size: size)
        }
    }

    /// SETXATTR: changes an attribute.
    static func setxattr(
        _ req: fuse_req_t?, _ inode: fuse_ino_t, _ name: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?,
        _ size: Int, _ flags: Int32
    ) {
        serve(req, "setxattr") { c throws(FSError) in
            try c.view.setXattr(
                try c.path(inode), String(cString: name!), Data(bytes: value!, count: size), flags: flags)
            fuse_reply_err(req, 0)
        }
    }

    /// REMOVEXATTR: resets an attribute to its default.
    static func removexattr(_ req: fuse_req_t?, _ inode: fuse_ino_t, _ name: UnsafePointer<CChar>?) {
        serve(req, "removexattr") { c throws(FSError) in
            try c.view.removeXattr(try c.path(inode), String(cString: name!))
            fuse_reply_err(req, 0)
        }
    }
}
