import CFuse
import Foundation
import KeychainEngine

/// The libfuse high-level callback table: each callback decodes its C arguments, calls the
/// ``KeychainView`` and encodes the answer. No keychain logic lives here.
enum FuseOperations {
    static func table() -> fuse_operations {
        var ops = fuse_operations()
        ops.`init` = { connection, config in
            config!.pointee.use_ino = 1
            // Long timeouts are safe for the lock (open and read always reach the daemon; value files are
            // direct_io) and spare a LOOKUP/GETATTR per path component. No negative caching: an item
            // added through the API appears at once.
            config!.pointee.entry_timeout = 30
            config!.pointee.attr_timeout = 30
            config!.pointee.negative_timeout = 0
            // O_TRUNC arrives with open, so `> value` replaces the value in one commit.
            connection!.pointee.want |= UInt32(FUSE_CAP_ATOMIC_O_TRUNC)
            // Requests arrive in memory, never spliced through a pipe, so the worker loop can screen them.
            connection!.pointee.want &= ~UInt32(FUSE_CAP_SPLICE_READ)
            return fuse_get_context()!.pointee.private_data
        }
        ops.getattr = { path, st, _ in
            FuseContext.run("getattr") { view throws(FSError) in
                FuseOperations.fill(st!, try view.attributes(FSPath(path!)))
                return 0
            }
        }
        ops.access = { path, _ in
            FuseContext.run("access") { view throws(FSError) in _ = try view.resolve(FSPath(path!)); return 0 }
        }
        ops.readdir = { path, buffer, filler, _, _, _ in
            FuseContext.run("readdir") { view throws(FSError) in
                let entries = try view.list(FSPath(path!), by: FuseContext.callerPID)
                _ = filler!(buffer, ".", nil, 0, fuse_fill_dir_flags(0))
                _ = filler!(buffer, "..", nil, 0, fuse_fill_dir_flags(0))
                var st = stat()
                for entry in entries {
                    FuseOperations.fill(&st, entry.attributes)
                    if filler!(buffer, entry.name, &st, 0, fuse_fill_dir_flags(0)) != 0 { break }
                }
                return 0
            }
        }
        ops.mkdir = { path, _ in
            FuseContext.run("mkdir") { view throws(FSError) in try view.makeDirectory(FSPath(path!)); return 0 }
        }
        ops.rmdir = { path in
            FuseContext.run("rmdir") { view throws(FSError) in try view.removeDirectory(FSPath(path!)); return 0 }
        }
        ops.unlink = { path in
            FuseContext.run("unlink") { view throws(FSError) in try view.unlink(FSPath(path!), by: FuseContext.callerPID); return 0 }
        }
        ops.rename = { from, to, flags in
            FuseContext.run("rename") { view throws(FSError) in
                let renameExchange: UInt32 = 2
                guard flags & renameExchange == 0 else { throw FSError(EINVAL, "exchanging items is not supported") }
                try view.rename(FSPath(from!), to: FSPath(to!))
                return 0
            }
        }
        ops.create = { path, _, _ in
            FuseContext.run("create") { view throws(FSError) in try view.create(FSPath(path!)) }
        }
        ops.mknod = { path, _, _ in
            FuseContext.run("mknod") { view throws(FSError) in try view.create(FSPath(path!)) }
        }
        ops.symlink = { _, _ in -EPERM }
        ops.link = { _, _ in -EPERM }
        ops.chmod = { _, _, _ in -EPERM }
        ops.chown = { _, _, _, _ in -EPERM }
        ops.utimens = { path, _, _ in
            // touch works and changes nothing: times come from the keychain's dates.
            FuseContext.run("utimens") { view throws(FSError) in _ = try view.resolve(FSPath(path!)); return 0 }
        }
        ops.open = { path, info in
            FuseContext.run("open") { view throws(FSError) in
                info!.pointee.fh = try view.open(FSPath(path!), flags: info!.pointee.flags)
                info!.pointee.direct_io = 1  // no secret in the page cache: every read reaches the lock check
                info!.pointee.keep_cache = 0
                // Readers commit nothing at close: spare them the FLUSH round trip. Writers commit there.
                info!.pointee.noflush = info!.pointee.flags & O_ACCMODE == O_RDONLY ? 1 : 0
                return 0
            }
        }
        ops.read = { _, buffer, size, offset, info in
            FuseContext.run("read") { view throws(FSError) in
                let data = try view.read(info!.pointee.fh, offset: Int(offset), size: size)
                data.withUnsafeBytes { if let base = $0.baseAddress { buffer!.update(from: base.assumingMemoryBound(to: CChar.self), count: data.count) } }
                return Int32(data.count)
            }
        }
        ops.write = { _, buffer, size, offset, info in
            FuseContext.run("write") { view throws(FSError) in
                Int32(try view.write(info!.pointee.fh, offset: Int(offset), data: Data(bytes: buffer!, count: size), owner: info!.pointee.lock_owner))
            }
        }
        ops.truncate = { path, size, info in
            FuseContext.run("truncate") { view throws(FSError) in
                try view.truncate(FSPath(path!), size: Int(size), handle: info.map { $0.pointee.fh })
                return 0
            }
        }
        ops.flush = { _, info in
            FuseContext.run("flush") { view throws(FSError) in try view.flush(info!.pointee.fh, owner: info!.pointee.lock_owner); return 0 }
        }
        ops.release = { _, info in
            FuseContext.run("release") { view throws(FSError) in try view.release(info!.pointee.fh); return 0 }
        }
        ops.fsync = { _, _, info in
            FuseContext.run("fsync") { view throws(FSError) in try view.flush(info!.pointee.fh, owner: info!.pointee.lock_owner); return 0 }
        }
        ops.getxattr = { path, name, value, size in
            FuseContext.run("getxattr") { view throws(FSError) in
                FuseOperations.copyOut(try view.getXattr(FSPath(path!), String(cString: name!)), to: value, size: size)
            }
        }
        ops.listxattr = { path, list, size in
            FuseContext.run("listxattr") { view throws(FSError) in
                let names = try view.listXattrs(FSPath(path!))
                return FuseOperations.copyOut(Data(names.flatMap { Array($0.utf8) + [0] }), to: list, size: size)
            }
        }
        ops.setxattr = { path, name, value, size, flags in
            FuseContext.run("setxattr") { view throws(FSError) in
                try view.setXattr(FSPath(path!), String(cString: name!), Data(bytes: value!, count: size), flags: flags)
                return 0
            }
        }
        ops.removexattr = { path, name in
            FuseContext.run("removexattr") { view throws(FSError) in
                try view.removeXattr(FSPath(path!), String(cString: name!))
                return 0
            }
        }
        ops.statfs = { _, st in
            st!.pointee.f_bsize = 4096
            st!.pointee.f_frsize = 4096
            st!.pointee.f_namemax = UInt(ItemNaming.maxNameBytes)
            return 0
        }
        return ops
    }

    /// xattr protocol: size 0 asks for the length; a short buffer is ERANGE.
    static func copyOut(_ data: Data, to buffer: UnsafeMutablePointer<CChar>?, size: Int) -> Int32 {
        if size == 0 { return Int32(data.count) }
        guard size >= data.count else { return -ERANGE }
        data.withUnsafeBytes { if let base = $0.baseAddress { buffer!.update(from: base.assumingMemoryBound(to: CChar.self), count: data.count) } }
        return Int32(data.count)
    }

    static func fill(_ st: UnsafeMutablePointer<stat>, _ a: FileAttributes) {
        var s = stat()
        s.st_mode = (a.isDirectory ? S_IFDIR : S_IFREG) | a.permissions
        s.st_nlink = a.isDirectory ? 2 : 1
        s.st_size = off_t(a.size)
        s.st_ino = __ino_t(a.inode)
        s.st_uid = getuid()
        s.st_gid = getgid()
        s.st_blksize = 4096
        s.st_blocks = blkcnt_t((a.size + 511) / 512)
        let seconds = a.modified.timeIntervalSince1970
        let time = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        s.st_mtim = time
        s.st_ctim = time
        s.st_atim = time
        st.pointee = s
    }
}
