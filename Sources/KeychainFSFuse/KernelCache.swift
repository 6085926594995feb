import KeychainFSCFuse
import Foundation
import Synchronization

/// What the kernel may hold of items and values (pages, attributes, dentries) and how it is dropped
/// (docs/spec.md §4 "The lock and the kernel's cache"). Every item and value inode whose attributes or pages the
/// kernel was given is noted; a device change invalidates all noted inodes before the command returns,
/// an update or delete invalidates exactly the items it changed (their inodes, files and dentries).
///
/// The invariant that keeps the lock: an inode whose pages or attributes the kernel may hold is noted,
/// with the stamp of its last note, unless an invalidation of it that started after that note has
/// finished. So:
/// - every way the kernel gets a page is a READ, whoever sends it (a read, readahead, a mapping's fault
///   MAP_SHARED or MAP_PRIVATE, even of a direct_io file, splice, sendfile), and every READ is noted
///   before the daemon checks the lock for it; attributes are noted when LOOKUP, GETATTR or OPEN
///   answers. Nothing else is noted, and nothing else needs to be.
/// - an invalidation takes the noted stamps, invalidates those inodes, and only then removes each entry
///   whose stamp is unchanged: a READ noted meanwhile keeps its inode noted for the next invalidation.
///   (Removing at the start would let a page refilled after one device change survive the next lock:
///   docs/filesystem.md, "The kernel's cache and the lock".)
/// A page being filled is locked by the kernel while its READ is in flight, and invalidation waits for
/// locked pages and drops them. The device state flips first, then the noted inodes are taken: a READ
/// noted before the take is dropped by this invalidation, one noted after it checks the lock after the
/// flip and is refused (EACCES). Attributes are versioned by the kernel: a GETATTR reply older than the
/// invalidation is discarded.
final class KernelCache: @unchecked Sendable {
    /// Noted inodes and the stamp of their last note (see the invariant above).
    private let served = Mutex(Notes())
    struct Notes {
        var stamps: [UInt64: UInt64] = [:]
        var next: UInt64 = 0

        mutating func note(_ inode: UInt64) {
            stamps[inode] = next
            next &+= 1
        }

        /// Forgets the inodes in `taken` not noted again since they were taken.
        mutating func remove(_ taken: [UInt64: UInt64]) {
            for (inode, stamp) in taken where stamps[inode] == stamp { stamps[inode] = nil }
        }
    }
    /// The FUSE session (a C pointer) and the notifications using it, guarded by `sessionState`. No lock
    /// is held while the kernel handles a notification: a dentry invalidation waits for the directory
    /// lock of a request in flight, whose handler may be invalidating inodes at that moment.
    private let sessionState = NSCondition()
    private var session: OpaquePointer?
    private var notifying = 0
    /// Dentry invalidations asked for while serving a FUSE request run here, after it: the kernel may
    /// hold the very directory lock they need (a rename locks both parents) until the request returns.
    private let deferred = DispatchQueue(label: "keychainfs.invalidation")
    /// Where inode invalidations asked for on a FUSE thread are sent from (docs/spec.md §4: from threads that do
    /// not serve FUSE requests).
    private let inodeNotifier = DispatchQueue(label: "keychainfs.notifier.inodes")
    /// Where a FUSE request's own dentry invalidations are sent from, apart from the inodes': one may wait
    /// for a directory lock that a request in flight holds (an rmdir of a sibling), and that request's
    /// handler may be waiting for its inode invalidations meanwhile (fsfuzz seed 951725133: a writer's close
    /// and an rmdir in one group deadlocked when both went through one queue).
    private let entryNotifier = DispatchQueue(label: "keychainfs.notifier.entries")

    /// Set while the session exists; nil before unmounting.
    /// Detaching waits for notifications under way, so the session outlives every use.
    func attach(_ session: OpaquePointer?) {
        sessionState.lock()
        self.session = session
        while session == nil && notifying > 0 { sessionState.wait() }
        sessionState.unlock()
    }

    /// Runs `body` with the session, unless it is gone.
    private func withSession(_ body: (OpaquePointer) -> Void) {
        sessionState.lock()
        let current = session
        if current != nil { notifying += 1 }
        sessionState.unlock()
        guard let current else { return }
        body(current)
        sessionState.lock()
        notifying -= 1
        sessionState.broadcast()
        sessionState.unlock()
    }

    func noteServed(_ inode: UInt64) {
        guard inode != Inode.root else { return }
        served.withLock { $0.note(inode) }
    }

    /// The device state changed: drop the pages and attributes of every noted file (the secrets and their
    /// sizes) before returning, split among threads when there are many (each notification is a system
    /// call of a few µs; docs/spec.md §7 wants the lock in force within 5 ms with 1,000 values cached). Item
    /// directories' attributes hold no secret (mode, a size of 0, a date): they are dropped right after,
    /// without holding up the command; listings and xattrs always reach the daemon.
    func invalidateAllServed() {
        let taken = served.withLock { $0.stamps }
        let files = taken.filter { $0.key & 3 != 0 }, directories = taken.filter { $0.key & 3 == 0 }
        let inodes = Array(files.keys)
        withSession { session in
            nonisolated(unsafe) let session = session
            let lanes = inodes.count < 64 ? 1 : Self.lanes
            DispatchQueue.concurrentPerform(iterations: lanes) { lane in
                for index in stride(from: lane, to: inodes.count, by: lanes) {
                    _ = fuse_lowlevel_notify_inval_inode(session, inodes[index], 0, 0)
                }
            }
        }
        served.withLock { $0.remove(files) }
        guard !directories.isEmpty else { return }
        deferred.async { [self] in
            withSession { session in
                for inode in directories.keys { _ = fuse_lowlevel_notify_inval_inode(session, inode, 0, 0) }
            }
            served.withLock { $0.remove(directories) }
        }
    }

    /// Sends a dentry invalidation from a thread of its own, without waiting: the crash point of
    /// `mkdir` uses it to leave a thread blocked on the directory lock the `mkdir` holds (``MountWatchdog``).
    func invalidateEntryInBackground(parent: UInt64, name: [UInt8]) {
        Thread.detachNewThread { [self] in
            withSession { session in Self.invalidateEntry(session, parent: parent, name: name) }
        }
    }

    /// libfuse sends a name's terminating NUL with it (`namelen + 1` bytes): a Swift array has none, so
    /// the byte after it was sent (and read past its end).
    private static func invalidateEntry(_ session: OpaquePointer, parent: UInt64, name: [UInt8]) {
        (name + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                _ = fuse_lowlevel_notify_inval_entry(session, parent, $0.baseAddress, name.count)
            }
        }
    }

    /// Threads that invalidate at once: one per core, at least two.
    private static let lanes = max(2, ProcessInfo.processInfo.activeProcessorCount)

    /// Items changed or went away behind the kernel's back: their inodes, their files' inodes (pages and
    /// attributes) and their dentries; `keepingEntries` when only their secrets changed (their names and
    /// places stand). With nil, any item may have changed: everything noted goes.
    func invalidate(items references: [Data]?, nodes: NodeTable, keepingEntries: Bool = false) {
        guard let references else { return invalidateAllServed() }
        guard !references.isEmpty else { return }
        var inodes: [UInt64] = []
        for reference in references {
            let item = Inode.item(reference)
            inodes += [item] + ItemFile.allCases.map { Inode.file($0, ofItem: item) }
        }
        let noted = served.withLock { notes in
            Dictionary(
                inodes.compactMap { inode in notes.stamps[inode].map { (inode, $0) } },
                uniquingKeysWith: { first, _ in first })
        }
        let entries = references.compactMap { nodes.entry(Inode.item($0)) }
        // A change made through the mount (a writer's close) is served on a FUSE thread: its notifications
        // go out from the notifier thread, and the request waits for them, so the close returns after them.
        let invalidateInodes = { [self] in
            withSession { session in
                for inode in noted.keys { _ = fuse_lowlevel_notify_inval_inode(session, inode, 0, 0) }
            }
            served.withLock { $0.remove(noted) }
        }
        if FuseThread.isCurrent { inodeNotifier.sync(execute: invalidateInodes) } else { invalidateInodes() }
        if keepingEntries { return }
        let invalidateEntries: @Sendable () -> Void = { [self] in
            withSession { session in
                for (parent, name) in entries { Self.invalidateEntry(session, parent: parent, name: name) }
            }
        }
        if FuseThread.holdsDirectoryLocks {
            deferred.async(execute: invalidateEntries)
        } else if FuseThread.isCurrent {
            entryNotifier.sync(execute: invalidateEntries)
        } else {
            invalidateEntries()
        }
    }
}

/// Marks the threads that serve FUSE requests and whether the request in hand is one for which the kernel
/// holds directory locks (see ``KernelCache``): a dentry invalidation then waits, so it is deferred; from
/// any other request (setxattr, a write's close) or thread it runs at once, before the change returns.
enum FuseThread {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The requests for which the kernel holds the locks of the directories they name, as bytes: marking
    /// runs on every request, and a `Set<String>` made and hashed a `String` each time (measured).
    private static let lockingOperations: [[UInt8]] = [
        "mkdir", "rmdir", "unlink", "rename", "create", "mknod", "lookup",
    ].map { Array($0.utf8) }

    static func mark(_ operation: StaticString = "") {
        let locking = operation.withUTF8Buffer { name in lockingOperations.contains { $0.elementsEqual(name) } }
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: locking ? 2 : 1))
    }

    static var isCurrent: Bool { pthread_getspecific(key) != nil }
    static var holdsDirectoryLocks: Bool { pthread_getspecific(key) == UnsafeMutableRawPointer(bitPattern: 2) }
}
