import KeychainFSModel
import KeychainFSStore
import Foundation
import Synchronization

/// Tells ``AccessPolicy`` when `access.toml` must be looked at again, so that a request whose policy did
/// not change costs no stat (measured: two stats per FUSE request were 5 % of the gatekeeper's profile).
///
/// An inotify watch on the vault directory hears the file created, deleted, renamed over, closed after a
/// write or changed in its attributes. The kernel queues the event before the writer's call returns, so
/// a `keychainfs access grant` still applies to the very next request. What inotify cannot hear (a write
/// still open, a change through a hard link elsewhere or from another host of a network filesystem) is
/// seen by a look at least every ``maxQuiet`` nanoseconds; without inotify, every call looks.
final class PolicyFileWatch: Sendable {
    /// The inotify descriptor (non-blocking), or -1: no watch, look every time.
    private let fd: Int32
    private let fileName: String
    /// Set once the directory itself was deleted or moved: the watch hears nothing more, so every call looks.
    private let lost = Atomic<Bool>(false)
    /// The longest time a policy is used without a look at its file.
    static let maxQuiet: UInt64 = 1_000_000_000

    init(directory: String, fileName: String) {
        self.fileName = fileName
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        let mask = UInt32(
            IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_ATTRIB | IN_DELETE_SELF
                | IN_MOVE_SELF)
        if fd >= 0, inotify_add_watch(fd, directory, mask) < 0 {
            close(fd)
            self.fd = -1
        } else {
            self.fd = fd
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Whether the file may have changed since the last call: an event about it (or about the directory
    /// itself, or a lost event) is queued, or there is no watch. Drains the queue; call under one lock.
    func heardChange() -> Bool {
        guard fd >= 0, !lost.load(ordering: .relaxed) else { return true }
        // Room for many events: one read usually drains the queue (other files of the vault report too). On
        // the stack: this runs on every request, and a 4 KiB array was an allocation and a memset each time.
        return withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 8) { buffer in
            var changed = false
            while true {
                let count = read(fd, buffer.baseAddress, buffer.count)
                guard count > 0 else { return changed || (count < 0 && errno != EAGAIN && errno != EINTR) }
                if concernsTheFile(UnsafeRawBufferPointer(rebasing: buffer[..<count])) { changed = true }
            }
        }
    }

    /// Whether any of the inotify events in `bytes` is about the policy file, the directory itself, or lost.
    private func concernsTheFile(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var concerns = false
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= bytes.count {
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                lost.store(true, ordering: .relaxed)
                concerns = true
            } else if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                concerns = true
            } else if length > 0 {
                let name = bytes[(offset + header)..<min(offset + header + length, bytes.count)].prefix { $0 != 0 }
                if name.elementsEqual(fileName.utf8) { concerns = true }
            }
            offset += header + length
        }
        return concerns
    }

    /// A monotonic clock in nanoseconds (coarse: a vDSO read, no system call).
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
