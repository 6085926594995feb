import KeychainFSCFuse
import Foundation
import KeychainFSItemNaming
import KeychainFSEngine
import KeychainFSModel
import Logging

/// Directory listings of libfuse's low-level operations, one function each (registered in ``LowLevelOperations/table()``).
extension LowLevelOperations {
    /// OPENDIR: a directory handle; listed at the first READDIR.
    static func opendir(_ req: fuse_req_t?, _ inode: fuse_ino_t, _ info: UnsafeMutablePointer<fuse_file_info>?) {
        serve(req, "opendir") { c throws(FSError) in
            // Listed at the first READDIR, not here: a listing counts toward `rm -r`'s unlink rule, and
            // opening a directory (fstat, fchdir, O_DIRECTORY) is not listing it.
            _ = try c.view.resolve(try c.path(inode))
            info!.pointee.fh = c.directories.open()
            fuse_reply_open(req, info)
        }
    }

    /// READDIR: a directory's entries, `.` and `..` first.
    static func readdir(
        _ req: fuse_req_t?, _ inode: fuse_ino_t, _ size: Int, _ offset: off_t,
        _ info: UnsafeMutablePointer<fuse_file_info>?
    ) {
        serve(req, "readdir") { c throws(FSError) in
            let handle = info!.pointee.fh
            let entries = try c.directories.entries(handle, offset: offset) { () throws(FSError) in
                try c.view.list(try c.path(inode), by: fuse_req_ctx(req)!.pointee.pid)
            }
            var buffer = [CChar](repeating: 0, count: size)
            var used = 0
            var index = Int(offset)
            // Offsets 0 and 1 are `.` and `..`; entry i is offset i + 2.
            while index < entries.count + 2 {
                let (name, attributes): (String, FileAttributes?) =
                    switch index {
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

    /// RELEASEDIR: drops a directory handle.
    static func releasedir(_ req: fuse_req_t?, _: fuse_ino_t, _ info: UnsafeMutablePointer<fuse_file_info>?) {
        context(req).directories.remove(info!.pointee.fh)
        fuse_reply_err(req, 0)
    }
}
