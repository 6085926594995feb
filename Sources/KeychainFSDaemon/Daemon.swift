import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSFuse
import Logging
import KeychainFSSecretService

/// How a daemon serves its vault.
package struct DaemonConfiguration: Sendable {
    package var vault: Vault
    package var mountpoint: String
    package var caller: Caller
    package var defaultAccessible: Accessibility?
    package var deviceKeyPath: String?
    /// The audit log's path (docs/spec.md §8 `--audit-log`); nil: none.
    package var auditLogPath: String?
    /// Sync synchronizable items this often (docs/spec.md §14 `--sync-interval`); nil: only when asked.
    package var syncInterval: TimeInterval?
    /// Refuse callers that no rule of `access.toml` matches (docs/spec.md §12).
    package var strictAccess = false
    /// Seconds before an unanswered authentication prompt ends as a user cancel (docs/spec.md §11).
    package var promptTimeout: TimeInterval = PromptQueue.defaultTimeout
    /// How the kernel reads values (docs/spec.md §4 "Two read paths"; `--kernel-cache`).
    package var readPath: ReadPath = .gatekeeper
    /// Let root read the mount too (FUSE's allow_root; docs/spec.md §1 `--allow-root`).
    package var allowRoot = false
    /// Serve the Secret Service on D-Bus (`--secret-service`; docs/secret-service.md); nil: not.
    package var secretService: SecretServiceOptions?
    /// Mount the filesystem at `mountpoint`; false (`keychainfs secret-service`): serve the Secret Service
    /// and the control socket only, until the bus goes away or the daemon is told to stop.
    package var mountsFilesystem = true
    /// Make the first unlock from the boot unlock's seal when the TPM releases it (`--tpm-unlock`,
    /// docs/tpm.md); otherwise the device stays locked and the log says why.
    package var unlocksWithTPM = false

    package init(
        vault: Vault, mountpoint: String, caller: Caller, defaultAccessible: Accessibility?, deviceKeyPath: String?,
        syncInterval: TimeInterval? = nil
    ) {
        self.vault = vault
        self.mountpoint = mountpoint
        self.caller = caller
        self.defaultAccessible = defaultAccessible
        self.deviceKeyPath = deviceKeyPath
        self.syncInterval = syncInterval
    }
}

/// One process per mounted vault: engine, keys, lock state, FUSE session and control socket (docs/spec.md §1).
package enum Daemon {
    /// Serves until unmounted, SIGTERM/SIGINT, or `keychainfs unmount`. Returns the exit status.
    package static func run(_ configuration: DaemonConfiguration, log: Logger) -> Int32 {
        ProcessHardening.disableCoreDumps()
        let exitRequest = ExitRequest()
        let audit: AuditLog?
        do {
            audit = try configuration.auditLogPath.map { path throws(KeychainError) in
                try AuditLog(path: path) { problem in log.error("\(problem)") }
            }
        } catch {
            log.error("\(error)")
            return 1
        }
        ProcessHardening.onTerminationSignal { signal in
            // With an audit log, SIGHUP means "the log was rotated" (as for syslog daemons).
            if signal == SIGHUP, let audit {
                audit.reopen()
                return
            }
            log.info("signal \(signal): unmounting")
            exitRequest.fire()
        }
        do {
            // Patience: an in-process client may hold the vault for the length of one call.
            let lock = try VaultLock(configuration.vault, patience: 2)
            let keychain = try Keychain(vault: configuration.vault, deviceKeyPath: configuration.deviceKeyPath)
            keychain.prompts.timeout = configuration.promptTimeout
            if configuration.unlocksWithTPM {
                do throws(KeychainError) {
                    try keychain.unlockWithBootSeal()
                    log.info("--tpm-unlock: unlocked from the TPM's boot unlock")
                } catch { log.warning("--tpm-unlock: \(error.message)") }
            }
            let guards = LockGuards.inForce(testDevice: try configuration.vault.config().testDevice)
            if guards != LockGuards() {
                log.warning("test device: lock guards switched off by \(LockGuards.environmentVariable)")
            }
            let verifiesExecutables = AccessPolicy.verifiesExecutables(
                testDevice: try configuration.vault.config().testDevice)
            if !verifiesExecutables {
                log.warning("test device: executable identity switched off by \(LockGuards.environmentVariable)")
            }
            let bindsConnections = AccessPolicy.bindsConnections(
                testDevice: try configuration.vault.config().testDevice)
            if !bindsConnections {
                log.warning("test device: connection binding switched off by \(TestSwitches.environmentVariable)")
            }
            let policy = try AccessPolicy(
                vault: configuration.vault, defaultCaller: configuration.caller, strict: configuration.strictAccess,
                verifiesExecutables: verifiesExecutables, bindsConnections: bindsConnections
            ) { log.warning("\($0)") }
            let view = KeychainView(
                keychain: keychain, caller: configuration.caller, defaultAccessible: configuration.defaultAccessible,
                guards: guards, accessPolicy: policy, audit: audit)
            // Serving the session bus only: the daemon ends with that bus (a mount or a private bus reconnects).
            let endsWithBus = !configuration.mountsFilesystem && configuration.secretService?.privateBus == false
            let fireExit: @Sendable () -> Void = { exitRequest.fire() }
            let busEnded = endsWithBus ? fireExit : nil
            // Before the mount: a bus name that cannot be owned ends the start with nothing mounted.
            let secretService = try configuration.secretService.map { options throws(BusError) in
                try SecretService(
                    keychain: keychain, accessPolicy: policy, audit: audit, enforcesAccess: guards.controlAccess,
                    privateBus: options.privateBus, replace: options.replace,
                    servesMount: configuration.mountsFilesystem, busEnded: busEnded)
            }
            defer { secretService?.stop() }
            if let secretService {
                log.info(
                    "secret service: \(SecretService.busName) on DBUS_SESSION_BUS_ADDRESS=\(secretService.address)")
            }
            var fuse: FuseMount?
            if configuration.mountsFilesystem {
                fuse = try FuseMount(
                    view: view, mountpoint: configuration.mountpoint, source: configuration.vault.directory, log: log,
                    readPath: configuration.readPath, allowRoot: configuration.allowRoot)
            }
            let mount = fuse
            let busOnly = DispatchSemaphore(value: 0)
            exitRequest.set {
                if let mount { mount.requestExit() } else { busOnly.signal() }
            }
            let handler = ControlHandler(
                keychain: keychain, mountpoint: configuration.mountpoint,
                requestUnmount: {
                    DispatchQueue.global().async { exitRequest.fire() }
                }, accessPolicy: policy, audit: audit, enforcesAccess: guards.controlAccess)
            let server = try ControlServer(
                socketPath: ControlSocket.path(for: configuration.vault), peerHandler: handler.handle,
                bindsConnections: bindsConnections,
                evictsFloodersFirst: ControlServer.evictsFloodersFirst(
                    testDevice: try configuration.vault.config().testDevice),
                requesterGone: { keychain.prompts.cancel(requester: $0) })
            ProcessHardening.trimMemoryPeriodically()
            if let interval = configuration.syncInterval {
                SyncCommands.syncPeriodically(keychain, every: interval, log: log)
            }
            let place = mount == nil ? "on the bus only" : "at \(configuration.mountpoint)"
            log.info(
                "serving \(configuration.vault.directory) \(place) (pid \(getpid()), device \(keychain.deviceStatus().state.rawValue))"
            )
            let result: Int32
            if let mount {
                result = mount.run()
            } else {
                busOnly.wait()
                result = 0
            }
            server.close()
            log.info(
                mount == nil
                    ? "stopped serving \(configuration.vault.directory)" : "unmounted \(configuration.mountpoint)")
            withExtendedLifetime(lock) {}
            return result == 0 ? 0 : 1
        } catch let error as KeychainError {
            log.error("\(error)")
            return 1
        } catch let error as BusError {
            log.error("secret service: \(error.message)")
            return 1
        } catch {
            log.error("\(error)")
            return 1
        }
    }
}

/// How the daemon serves the Secret Service.
package struct SecretServiceOptions: Sendable {
    /// Start a dbus-daemon of its own instead of joining DBUS_SESSION_BUS_ADDRESS (`--private-bus`).
    package var privateBus: Bool
    /// Take org.freedesktop.secrets over from its owner (`--replace`).
    package var replace: Bool

    package init(privateBus: Bool, replace: Bool) {
        self.privateBus = privateBus
        self.replace = replace
    }
}

/// The one-shot exit action, settable once the mount exists, callable from any thread.
final class ExitRequest: @unchecked Sendable {
    private let lock = NSLock()
    private var action: (@Sendable () -> Void)?
    private var fired = false

    func set(_ action: @escaping @Sendable () -> Void) {
        lock.lock()
        let alreadyFired = fired
        self.action = action
        lock.unlock()
        if alreadyFired { action() }
    }

    func fire() {
        lock.lock()
        fired = true
        let action = self.action
        lock.unlock()
        action?()
    }
}
