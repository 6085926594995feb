import Foundation
import KeychainFSDaemon
import KeychainFSEngine
import KeychainFSFuse
import KeychainFSModel
import KeychainTesting
import Logging
import Synchronization

/// A simulated device's keychain served in this process, on the device's own engine: a real FUSE mount
/// (the daemon's ``FuseMount`` and ``KeychainView``) and the vault's control socket (the daemon's handler).
/// In-process, not a spawned daemon, so the device's lock, prompts, virtual clock and events are the same
/// for the files, the CLI and the code under test: a simulated device's vault opens on no other engine.
final class DeviceMount: DeviceAttachment {
    /// How long ``detach()`` waits for the FUSE loop to end after asking it to (FuseMount detaches the
    /// mount itself after 3 s).
    static let exitDeadline: TimeInterval = 10

    let mountpoint: String
    let app: App
    private let fuse: FuseMount
    private let control: EmbeddedControlServer
    private let loopEnded = DispatchSemaphore(value: 0)

    init(engine: Keychain, app: App, mountpoint: String, requestUnmount: @escaping @Sendable () -> Void)
        throws(KeychainError)
    {
        self.mountpoint = mountpoint
        self.app = app
        guard mkdir(mountpoint, 0o700) == 0 || errno == EEXIST else {
            throw KeychainError(SecStatus.io, "cannot make the mountpoint \(mountpoint) (errno \(errno))")
        }
        // The socket first: it ends at once, a mount does not, so a failure of either leaves nothing behind.
        control = try EmbeddedControlServer(
            keychain: engine, vault: engine.vault, mountpoint: mountpoint, requestUnmount: requestUnmount)
        let view = KeychainView(keychain: engine, caller: app.caller)
        let quiet = Logger(label: "keychaintesting.mount") { _ in SwiftLogNoOpLogHandler() }
        do {
            fuse = try FuseMount(view: view, mountpoint: mountpoint, source: engine.vault.directory, log: quiet)
        } catch {
            control.close()
            throw KeychainError(SecStatus.io, "cannot mount the simulated device: \(error.message)")
        }
        Thread.detachNewThread { [fuse, loopEnded] in
            _ = fuse.run()
            loopEnded.signal()
        }
    }

    /// Stops the control socket, ends the FUSE loop and waits for it (with a deadline); a mount that is
    /// still there then is detached, so nothing stays mounted.
    func detach() {
        control.close()
        fuse.requestExit()
        if loopEnded.wait(timeout: .now() + Self.exitDeadline) == .timedOut || MountTable.isMounted(mountpoint) {
            FuseMount.detach(mountpoint)
        }
    }
}

extension SimulatedDevice {
    /// Mounts the device's keychain for code that reads files (`<mount>/genp/<service>/<account>/value`)
    /// and serves its control socket for the `keychainfs` CLI (``environment``); returns the mountpoint, a
    /// directory inside the device's own. Served in this process on the device's engine: ``lock()`` makes
    /// reads of the mount fail with EACCES, as `keychainfs device lock` does, and what the CLI does to the
    /// device the test sees. Requests through the mount come from `app` (``App/unnamed`` unless given).
    /// Unmounted by ``unmount()`` or when the device goes away (even when the test fails); if the test
    /// process dies, the mount's watchdog and `auto_unmount` take it down. Needs FUSE (`/dev/fuse`, and
    /// root or `fusermount3`). Mounting again returns the same mountpoint; another `app` is an error.
    @discardableResult
    public func mount(as app: App = .unnamed) throws(KeychainError) -> String {
        try attachment.withLock { slot throws(KeychainError) -> String in
            if let mounted = slot as? DeviceMount {
                guard mounted.app == app else {
                    throw KeychainError(
                        SecStatus.param, "the device is mounted as \(mounted.app.bundleID): unmount() it first")
                }
                return mounted.mountpoint
            }
            let mounted = try DeviceMount(engine: engine, app: app, mountpoint: directory + "/mount") {
                [weak self] in
                // `keychainfs unmount`: off the control handler's thread, which answers first.
                let device = self
                Thread.detachNewThread { device?.unmount() }
            }
            slot = mounted
            return mounted.mountpoint
        }
    }

    /// Unmounts ``mount(as:)``'s mount and stops its control socket (nothing when not mounted). Bounded: a
    /// mount that does not end in time is detached.
    public func unmount() {
        attachment.withLock { $0.take() }?.detach()
    }

    /// Where ``mount(as:)`` mounted the device; nil when it is not mounted.
    public var mountpoint: String? { attachment.withLock { ($0 as? DeviceMount)?.mountpoint } }

    /// The variables that point the `keychainfs` CLI (and `Security` code in a child process) at this
    /// device: `KEYCHAIN_VAULT` (its vault), `KEYCHAIN_ACCESS_GROUPS` (the mounted app's groups) and, while
    /// mounted, `KEYCHAIN_MOUNT`. The CLI reaches the device only while it is mounted (it talks to the
    /// control socket ``mount(as:)`` serves; a simulated device's vault opens in no other process).
    /// No secret is in them.
    public var environment: [String: String] {
        let mounted = attachment.withLock { $0 as? DeviceMount }
        var variables = [
            "KEYCHAIN_VAULT": engine.vault.directory,
            "KEYCHAIN_ACCESS_GROUPS": (mounted?.app ?? .unnamed).accessGroups.joined(separator: ","),
        ]
        if let mounted { variables["KEYCHAIN_MOUNT"] = mounted.mountpoint }
        return variables
    }
}
