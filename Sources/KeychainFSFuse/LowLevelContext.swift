import KeychainFSCFuse
import Foundation
import KeychainFSEngine
import KeychainFSModel
import Logging
import Synchronization

/// What every low-level request reaches through `fuse_req_userdata`: the view, the kernel's inodes, the
/// kernel cache bookkeeping and the open directory listings.
final class LowLevelContext: Sendable {
    let view: KeychainView
    let log: Logger
    let nodes = NodeTable()
    let cache = KernelCache()
    let directories = DirectoryHandles()
    let readPath: ReadPath
    /// How long the kernel may keep entries and attributes: long, because every change it could have
    /// cached is invalidated explicitly (``KernelCache``); 0 while access rules exist, since the kernel's
    /// caches are shared by all callers (docs/spec.md §4 "Two read paths").
    var cacheSeconds: Double { view.answersPerCaller ? 0 : 3600 }

    init(view: KeychainView, log: Logger, readPath: ReadPath) {
        self.view = view
        self.log = log
        self.readPath = readPath
    }

    /// The path the kernel knows `inode` by. An item moved behind the kernel's back (a naming attribute
    /// changed through an xattr or the API) keeps its inode but not its name until the next LOOKUP finds
    /// it under the new one; meanwhile its old path may name another item, so a request on the inode of an
    /// item or of its files checks that the path still leads to that item (ENOENT otherwise: answering
    /// with the other item's attributes would leave the kernel a wrong size for the file's pages).
    func path(_ inode: UInt64) throws(FSError) -> FSPath {
        guard let path = nodes.path(inode) else {
            throw FSError(ENOENT, "the kernel named an inode it no longer holds")
        }
        if Inode.owningItem(inode) != nil { _ = try checkedNode(inode, path) }
        return path
    }

    /// ``path(_:)`` and what the path resolves to (checked as there): for a request that needs both, so that
    /// the path is resolved once (measured: the gatekeeper OPEN resolved it three times).
    func resolved(_ inode: UInt64) throws(FSError) -> (path: FSPath, node: FSNode) {
        guard let path = nodes.path(inode) else {
            throw FSError(ENOENT, "the kernel named an inode it no longer holds")
        }
        return (path, try checkedNode(inode, path))
    }

    /// What `path` resolves to, refused (ENOENT) when it is not the item `inode` belongs to.
    private func checkedNode(_ inode: UInt64, _ path: FSPath) throws(FSError) -> FSNode {
        let node = try view.resolve(path)
        guard let expected = Inode.owningItem(inode) else { return node }
        // A sealed item (found by its lookup hashes while its class is locked) is not compared: the
        // request itself then answers EACCES, as it must while locked.
        switch node {
        case .item(let item) where !item.isSealed && item.inode != expected && !wasMade(expected, item),
            .file(let item, _) where !item.isSealed && item.inode != expected && !wasMade(expected, item):
            throw FSError(ENOENT, "the item moved")
        default: return node
        }
    }

    /// Whether `inode` is that of the item in the making that became `item` (``ItemsInTheMaking``).
    private func wasMade(_ inode: UInt64, _ item: FSItem) -> Bool {
        view.making.stored(as: inode) == item.persistentRef
    }

    func path(_ parent: UInt64, _ name: UnsafePointer<CChar>) throws(FSError) -> FSPath {
        try path(parent).appending(Array(UnsafeRawBufferPointer(start: name, count: strlen(name))))
    }

    /// Items and values whose attributes the kernel now holds are noted for invalidation.
    func noteServed(_ attributes: FileAttributes) {
        if attributes.inode & (1 << 63) != 0 && attributes.inode & 3 != 2 { cache.noteServed(attributes.inode) }
    }

    func entry(_ attributes: FileAttributes) -> fuse_entry_param {
        var entry = fuse_entry_param()
        entry.ino = attributes.inode
        entry.generation = 1
        entry.attr = StatFormat.stat(attributes)
        entry.attr_timeout = cacheSeconds
        entry.entry_timeout = cacheSeconds
        return entry
    }

    func replyAttributes(_ req: fuse_req_t?, _ path: FSPath) throws(FSError) {
        let attributes = try view.attributes(path)
        noteServed(attributes)
        var st = StatFormat.stat(attributes)
        fuse_reply_attr(req, &st, cacheSeconds)
    }

    /// The audit line of an open of a secret: who, which file, and how it ended (docs/spec.md §8). Throws (EIO)
    /// when the line cannot be written: the open is then refused (docs/security.md, "Audit log").
    func recordOpen(_ req: fuse_req_t?, _ path: FSPath, _ failure: FSError?, caller: Caller?) throws(FSError) {
        guard let audit = view.audit else { return }
        let context = fuse_req_ctx(req)!.pointee
        let status = failure.map { $0.status ?? ErrnoTable.status(for: $0.errno) } ?? SecStatus.success
        do {
            try audit.record(
                "open", item: String(decoding: path.bytes.dropFirst(), as: UTF8.self), status: status,
                by: .init(pid: context.pid, uid: context.uid, caller: caller))
        } catch { throw FSError(error) }
    }

    /// xattr protocol: size 0 asks for the length; a short buffer is ERANGE.
    func replyXattr(_ req: fuse_req_t?, _ data: Data, size: Int) {
        if size == 0 { fuse_reply_xattr(req, data.count); return }
        guard size >= data.count else { fuse_reply_err(req, ERANGE); return }
        data.withUnsafeBytes { _ = fuse_reply_buf(req, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) }
    }
}

/// Open directories: each listing is taken at its first READDIR (and again when a reader rewinds to
/// offset 0) and served by offset until releasedir.
final class DirectoryHandles: Sendable {
    typealias Entries = [(name: String, attributes: FileAttributes)]
    private let listings = Mutex<[UInt64: Entries?]>([:])
    private let nextID = Atomic<UInt64>(1)

    func open() -> UInt64 {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        listings.withLock { $0[id] = .some(nil) }
        return id
    }

    /// The handle's listing, taken by `list` if it has none yet or the reader starts over.
    func entries(_ id: UInt64, offset: off_t, list: () throws(FSError) -> Entries) throws(FSError) -> Entries {
        if offset > 0, let taken = listings.withLock({ $0[id] ?? nil }) { return taken }
        let entries = try list()
        listings.withLock { $0[id] = .some(entries) }
        return entries
    }

    func remove(_ id: UInt64) { _ = listings.withLock { $0.removeValue(forKey: id) } }
}

/// `stat` for a node.
enum StatFormat {
    static func stat(_ a: FileAttributes) -> Glibc.stat {
        var s = Glibc.stat()
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
        return s
    }
}
