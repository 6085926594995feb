import CFuse
import CFuseLoop
import Foundation
import KeychainEngine
import Logging

/// One FUSE mount of a ``KeychainView``: mounted at init, served by ``run()`` on the calling thread
/// (libfuse's own worker pthreads), torn down by ``requestExit()`` from any thread.
public final class FuseMount: @unchecked Sendable {
    public let mountpoint: String
    private let fuse: OpaquePointer
    private let view: KeychainView
    private let context: Unmanaged<FuseContext>
    private let finished = NSCondition()
    private var isFinished = false

    /// Mounts `view` at `mountpoint`: private to the user (no allow_other), `auto_unmount` so a killed
    /// daemon leaves no dead mount, and the vault path as the source shown in /proc/mounts.
    public init(view: KeychainView, mountpoint: String, source: String, log: Logger) throws(FSError) {
        self.mountpoint = mountpoint
        context = Unmanaged.passRetained(FuseContext(view: view, log: log))
        var ops = FuseOperations.table()
        var args = fuse_args(argc: 0, argv: nil, allocated: 0)
        let escapedSource = source.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ",", with: "\\,")
        for arg in ["keychainfs", "-o", "fsname=\(escapedSource),subtype=keychainfs,default_permissions,auto_unmount"] {
            fuse_opt_add_arg(&args, arg)
        }
        defer { fuse_opt_free_args(&args) }
        guard let fuse = fuse_new(&args, &ops, MemoryLayout<fuse_operations>.size, context.toOpaque()) else {
            context.release()
            throw FSError(EINVAL, "libfuse refused the mount options")
        }
        guard fuse_mount(fuse, mountpoint) == 0 else {
            fuse_destroy(fuse)
            context.release()
            throw FSError(EIO, "cannot mount at \(mountpoint) (does it exist, is it an empty directory, is /dev/fuse usable?)")
        }
        self.fuse = fuse
        nonisolated(unsafe) let session = fuse
        view.kernelAttributes.setInvalidator { path in
            // The kernel's own bytes, NUL-terminated: names equal as Strings may differ as bytes.
            (path + [0]).withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { _ = fuse_invalidate_path(session, $0.baseAddress) }
            }
        }
        self.view = view
    }

    /// Serves requests until the mount goes away or ``requestExit()`` is called; then unmounts.
    /// The loop is libfuse's, guarded against its self-rename deadlock (see `guarded_loop.h`).
    public func run() -> Int32 {
        let result = keychainfs_guarded_loop(fuse, 16)
        finished.lock()
        isFinished = true
        finished.broadcast()
        finished.unlock()
        view.kernelAttributes.setInvalidator(nil)
        fuse_unmount(fuse)
        fuse_destroy(fuse)
        context.release()
        return result
    }

    /// Ends the loop. fuse_exit alone does not wake workers blocked in read(/dev/fuse), so one request is
    /// sent to wake them (a lookup of a name that cannot exist; negative lookups are never cached); if the
    /// loop still runs after 3 s (a wedged mount), the mount is detached.
    public func requestExit() {
        fuse_exit(fuse)
        let wakeup = mountpoint + "/.keychainfs-exit-\(UInt64.random(in: 0 ... .max))"
        Thread.detachNewThread { var st = stat(); _ = stat(wakeup, &st) }
        finished.lock()
        let ended = isFinished || finished.wait(until: Date().addingTimeInterval(3))
        finished.unlock()
        if !ended { Self.detach(mountpoint) }
    }

    /// Lazily unmounts `path`: umount2 as root, fusermount3 otherwise.
    public static func detach(_ path: String) {
        if umount2(path, Int32(MNT_DETACH)) == 0 { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/fusermount3")
        process.arguments = ["-u", "-z", path]
        try? process.run()
        process.waitUntilExit()
    }
}
