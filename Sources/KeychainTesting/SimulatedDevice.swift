import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import Synchronization

/// A throwaway iOS-like device for one test: a test vault (the minimal passcode derivation, marked so
/// that only the kit opens it) on a virtual clock
/// (``clock``) in a private temporary directory, removed when the device goes away, with its device key inside it.
/// The device owns one in-process engine: its in-memory lock state, prompts and biometry are this
/// device's, and the controls (``lock()``, ``unlock(passcode:)``, …) are the engine's own device commands,
/// the ones the daemon's `keychainfs device …` runs.
///
/// Calls made inside `run { … }` (SecItem, SecKey, SecPKCS12Import, LAContext) go to this device.
public final class SimulatedDevice: Sendable {
    /// The engine the device owns; every call and every control goes to it (and KeychainTestingMount's mount).
    package let engine: Keychain
    let virtualClock = VirtualClock()
    /// The passcode the kit set (``launch(_:)`` unlocks with it): a test's, never a user's.
    let knownPasscode = Mutex<String?>(nil)
    /// What the keychain did (``events``).
    let eventLog = EventLog()
    /// One connection per app that has called (``run(as:_:)``), so each call carries its app's groups.
    let apps = Mutex<[App: KeychainConnection]>([:])
    /// The private temporary directory (0700) holding the vault and the device key.
    public let directory: String
    /// Test-only: `run` binds the whole process, unchecked, as if there were no task-local binding.
    let taskBindingDisabledForTesting = Atomic<Bool>(false)
    /// Counted among the devices alive (``UnboundCalls``): set once init succeeded, so a failed init's deinit
    /// takes nothing back.
    private let countedAlive = Atomic<Bool>(false)
    /// What another module of the kit attached to the device (KeychainTestingMount's mount), ended when
    /// the device goes away, before its directory is removed.
    package let attachment = Mutex<(any DeviceAttachment)?>(nil)
    /// The device's own swtpm (``SimulatedTPM/swtpm``), stopped when the device goes.
    let tpmProcess: DeviceTPMProcess?

    /// A new device: without a passcode (unlocked, as iOS without one) or with `passcode` set and
    /// unlocked; `biometryEnrolled` enrols a face (it needs a passcode, as on iOS); with `tpm`, on a TPM 2.0
    /// (``SimulatedTPM``): its device key sealed by it, its passcode checked by it, its Secure Enclave keys
    /// made in it (errSecNotAvailable, saying why, where none can start).
    /// Calls made in ``run(_:)`` come from ``App/unnamed`` (access group `default`); ``run(as:_:)`` names the app.
    public init(passcode: String? = nil, biometryEnrolled: Bool = false, tpm: SimulatedTPM? = nil)
        throws(KeychainError)
    {
        directory = try TemporaryDirectory.make()
        var started: DeviceTPMProcess?
        do {
            var binding: TPMBinding?
            switch tpm?.source {
            case .swtpm:
                started = try DeviceTPMProcess(in: directory)
                binding = started.map { TPMBinding(tcti: $0.tcti, pcrs: [], pinned: true) }
            case .tcti(let tcti): binding = TPMBinding(tcti: tcti, pcrs: [], pinned: true)
            case nil: binding = nil
            }
            tpmProcess = started
            let vault = try Vault.create(
                at: directory + "/vault", deviceKeyPath: binding == nil ? directory + "/device.key" : nil,
                tpm: binding, simulatedDevice: true)
            engine = try Keychain(vault: vault, clock: virtualClock)
            engine.addEventListener { [eventLog] in eventLog.record($0) }
            if let passcode { try engine.setPasscode(Data(passcode.utf8)) }
            knownPasscode.withLock { $0 = passcode }
            if biometryEnrolled { try engine.enrollBiometry() }
        } catch {
            started?.stop()
            Vault.forgetThrowaway(directory + "/vault", deviceKeyPath: directory + "/device.key")
            TemporaryDirectory.remove(directory)
            throw error
        }
        UnboundCalls.kitDeviceMade()
        countedAlive.store(true, ordering: .sequentiallyConsistent)
    }

    deinit {
        if countedAlive.load(ordering: .sequentiallyConsistent) { UnboundCalls.kitDeviceGone() }
        attachment.withLock { $0.take() }?.detach()
        tpmProcess?.stop()
        Vault.forgetThrowaway(directory + "/vault", deviceKeyPath: directory + "/device.key")
        TemporaryDirectory.remove(directory)
    }

    // MARK: Scoping

    /// Runs `body` with this device bound to the current task and its child tasks, its calls made by `app`
    /// (``App/unnamed`` unless given): the app and the device travel in the same task-local binding.
    public func run<T>(as app: App = .unnamed, _ body: () throws -> T) rethrows -> T {
        let binding = binding(for: app)
        if taskBindingDisabledForTesting.load(ordering: .relaxed) {
            KeychainBinding.replaceProcessBindingForTesting(binding)
            return try body()
        }
        return try KeychainBinding.$task.withValue(binding, operation: body)
    }

    /// Runs `body` with this device bound to the current task and its child tasks, its calls made by `app`.
    public func run<T>(
        as app: App = .unnamed, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        let binding = binding(for: app)
        if taskBindingDisabledForTesting.load(ordering: .relaxed) {
            KeychainBinding.replaceProcessBindingForTesting(binding)
            return try await body()
        }
        return try await KeychainBinding.$task.withValue(binding, operation: body, isolation: isolation)
    }

    /// Binds this device for the whole process, for code that hops to a DispatchQueue or a Thread (which
    /// lose task-locals); a task's own binding (`run { … }`) still comes first. Throws while
    /// another device is current. The binding keeps the device alive until ``resignCurrent()``.
    public func makeCurrent(as app: App = .unnamed) throws(KeychainError) {
        try KeychainBinding.bindProcess(binding(for: app))
    }

    /// Ends ``makeCurrent()``'s binding (nothing if this device is not the process's).
    public func resignCurrent() {
        KeychainBinding.unbindProcess(owner: self)
    }

    /// The device calls go to here: the task's (`run { … }`), else the process's (``makeCurrent()``).
    public static var current: SimulatedDevice? { KeychainBinding.current?.owner as? SimulatedDevice }

    /// The app whose calls are bound to this task (or process) on this device; nil outside a binding.
    public static var currentApp: App? {
        (KeychainBinding.current?.connection).flatMap { connection in current?.app(of: connection) }
    }

    private func binding(for app: App) -> KeychainBinding {
        let connection = apps.withLock { table in
            if let made = table[app] { return made }
            let made = KeychainConnection(engine: engine, caller: app.caller)
            table[app] = made
            return made
        }
        return KeychainBinding(connection: connection, owner: self)
    }

    private func app(of connection: KeychainConnection) -> App? {
        apps.withLock { table in table.first { $0.value === connection }?.key }
    }
}

/// Something a module of the kit attaches to a device (a mount) and ends with it.
package protocol DeviceAttachment: Sendable {
    /// Ends it, within a bounded time; called once.
    func detach()
}
