import KeychainFSChildProcesses
import KeychainFSCFuse
import Foundation
import KeychainFSEngine
import KeychainFSModel
import Logging

/// One FUSE mount of a ``KeychainView`` through libfuse's low-level API: mounted at init, served by
/// ``run()`` on the calling thread (libfuse's own worker pthreads), torn down by ``requestExit()`` from
/// any thread. The kernel keeps entries, attributes and unprotected values cached; every change the
/// keychain reports is invalidated here before the call that made it returns (``KernelCache``).
package final class FuseMount: @unchecked Sendable {
    package let mountpoint: String
    private let session: OpaquePointer
    private let context: Unmanaged<LowLevelContext>
    private let finished = NSCondition()
    private var isFinished = false
    /// On the kernel-cache path: notices access rules appearing in `access.toml` after the mount.
    private var refusalWatch: DispatchSourceTimer?
    /// Takes the mount down if this process dies without unmounting (``MountWatchdog``).
    private var watchdog: MountWatchdog?

    /// Mounts `view` at `mountpoint`: private to the user (no allow_other), `auto_unmount` and a
    /// ``MountWatchdog`` so a killed daemon leaves no dead or hung mount, and the vault path as the source
    /// shown in /proc/mounts. The kernel-cache read path is refused while access rules, strict mode or an
    /// audit log need to see every open, and mounts read-only.
    /// `allowRoot`: root may use the mount too (FUSE's allow_root), for system services reading a user's
    /// secrets; everyone else stays out.
    package init(
        view: KeychainView, mountpoint: String, source: String, log: Logger, readPath: ReadPath = .gatekeeper,
        allowRoot: Bool = false
    ) throws(FSError) {
        if readPath == .kernelCache, let reason = view.kernelCacheRefusal {
            throw FSError(
                EINVAL, "--kernel-cache cannot be used \(reason): the kernel would open files without asking the daemon"
            )
        }
        self.mountpoint = mountpoint
        let context = LowLevelContext(view: view, log: log, readPath: readPath)
        self.context = Unmanaged.passRetained(context)
        var ops = LowLevelOperations.table()
        var args = fuse_args(argc: 0, argv: nil, allocated: 0)
        let escapedSource = source.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
            of: ",", with: "\\,")
        let extra = (readPath == .kernelCache ? ",ro" : "") + (allowRoot ? ",allow_root" : "")
        for arg in [
            "keychainfs", "-o", "fsname=\(escapedSource),subtype=keychainfs,default_permissions,auto_unmount\(extra)",
        ] {
            fuse_opt_add_arg(&args, arg)
        }
        defer { fuse_opt_free_args(&args) }
        guard let session = fuse_session_new(&args, &ops, MemoryLayout<fuse_lowlevel_ops>.size, self.context.toOpaque())
        else {
            self.context.release()
            throw FSError(EINVAL, "libfuse refused the mount options")
        }
        let claim: MountPointClaim
        do { claim = try MountPointClaim(mountpoint) } catch {
            fuse_session_destroy(session)
            self.context.release()
            throw error
        }
        let mounted = fuse_session_mount(session, mountpoint) == 0
        claim.end()
        guard mounted else {
            fuse_session_destroy(session)
            self.context.release()
            throw FSError(
                EIO, "cannot mount at \(mountpoint) (does it exist, is it an empty directory, is /dev/fuse usable?)")
        }
        self.session = session
        watchdog = view.guards.mountWatchdog ? MountWatchdog(mountpoint: mountpoint) : nil
        if watchdog == nil && view.guards.mountWatchdog {
            log.warning(
                "no watchdog for the mount: if the daemon dies while stuck in the kernel, abort the connection by hand")
        }
        context.cache.attach(session)
        let guards = view.guards
        view.keychain.addChangeObserver { [cache = context.cache, nodes = context.nodes] change in
            guard guards.invalidateKernelCache else { return }
            switch change {
            case .device: cache.invalidateAllServed()
            case .items(let changed): cache.invalidate(items: changed, nodes: nodes)
            case .secrets(let changed): cache.invalidate(items: changed, nodes: nodes, keepingEntries: true)
            }
        }
        // Not a guard of the lock: an item in the making's entry must go once it is stored, or the kernel
        // keeps reaching it by an inode that is no longer its own.
        view.making.onMade { [cache = context.cache, nodes = context.nodes] reference in
            cache.invalidate(items: [reference], nodes: nodes)
        }
        if readPath == .kernelCache { watchForRefusal(view, context.cache, log: log) }
    }

    /// The kernel-cache path serves nothing once access rules appear (``KeychainView/checkKernelCacheRead``);
    /// what the kernel already holds is dropped within a second of the rules' arrival, since no OPEN would
    /// ever ask the daemon again.
    private func watchForRefusal(_ view: KeychainView, _ cache: KernelCache, log: Logger) {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "keychainfs.kernel-cache-watch"))
        nonisolated(unsafe) var refused = false
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler {
            let now = view.kernelCacheRefusal != nil
            if now && !refused {
                log.error(
                    "access rules appeared: this --kernel-cache mount refuses every read until remounted without --kernel-cache"
                )
                cache.invalidateAllServed()
            }
            refused = now
        }
        timer.resume()
        refusalWatch = timer
    }

    /// Serves requests until the mount goes away or ``requestExit()`` is called; then unmounts.
    package func run() -> Int32 {
        defer { refusalWatch?.cancel() }
        let config = fuse_loop_cfg_create()
        defer { fuse_loop_cfg_destroy(config) }
        fuse_loop_cfg_set_max_threads(config, 16)
        fuse_loop_cfg_set_clone_fd(config, 1)
        let result = fuse_session_loop_mt(session, config)
        finished.lock()
        isFinished = true
        finished.broadcast()
        finished.unlock()
        context.takeUnretainedValue().cache.attach(nil)
        fuse_session_unmount(session)
        fuse_session_destroy(session)
        watchdog?.dismiss()
        context.release()
        return result
    }

    /// Ends the loop. fuse_session_exit alone does not wake workers blocked in read(/dev/fuse), so one
    /// request is sent to wake them (a lookup of a name that cannot exist; negative lookups are never
    /// cached); if the loop still runs after 3 s (a wedged mount), the mount is detached.
    package func requestExit() {
        fuse_session_exit(session)
        let wakeup = mountpoint + "/.keychainfs-exit-\(UInt64.random(in: 0 ... .max))"
        Thread.detachNewThread {
            var st = stat(); _ = stat(wakeup, &st)
        }
        finished.lock()
        let ended = isFinished || finished.wait(until: Date().addingTimeInterval(3))
        finished.unlock()
        if !ended { Self.detach(mountpoint) }
    }

    /// Lazily unmounts `path`: umount2 as root, fusermount3 otherwise.
    package static func detach(_ path: String) {
        if umount2(path, Int32(MNT_DETACH)) == 0 { return }
        _ = try? ChildProcess.run("/bin/fusermount3", ["-u", "-z", path], timeout: 10)
    }
}
