import Foundation
import KeychainClient
import KeychainEngine
import KeychainModel
import Synchronization

/// A throwaway iOS-like device for one test: a test vault (fast passcode derivation, no lockout delays)
/// in a private temporary directory, removed when the device goes away, with its device key inside it.
/// The device owns one in-process engine: its in-memory lock state, prompts and biometry are this
/// device's, and the controls (``lock()``, ``unlock(passcode:)``, …) are the engine's own device commands,
/// the ones the daemon's `keychainfs device …` runs.
///
/// Calls made inside `run { … }` (SecItem, SecKey, SecPKCS12Import, LAContext) go to this device.
public final class SimulatedDevice: Sendable {
    /// The engine the device owns; every call and every control goes to it.
    let engine: Keychain
    let connection: KeychainConnection
    /// The private temporary directory (0700) holding the vault and the device key.
    public let directory: String
    /// Test-only: `run` binds the whole process, unchecked, as if there were no task-local binding.
    let taskBindingDisabledForTesting = Atomic<Bool>(false)

    /// A new device: without a passcode (unlocked, as iOS without one) or with `passcode` set and
    /// unlocked; `biometryEnrolled` enrols a face (it needs a passcode, as on iOS).
    /// Calls made with it use the access group `default` (`Caller.defaultAccessGroups`).
    public init(passcode: String? = nil, biometryEnrolled: Bool = false) throws(KeychainError) {
        directory = try TemporaryDirectory.make()
        do {
            let vault = try Vault.create(at: directory + "/vault", deviceKeyPath: directory + "/device.key", testDevice: true)
            engine = try Keychain(vault: vault)
            if let passcode { try engine.setPasscode(Data(passcode.utf8)) }
            if biometryEnrolled { try engine.enrollBiometry() }
        } catch {
            TemporaryDirectory.remove(directory)
            throw error
        }
        connection = KeychainConnection(engine: engine, caller: Caller())
    }

    deinit {
        TemporaryDirectory.remove(directory)
    }

    // MARK: Scoping

    /// Runs `body` with this device bound to the current task and its child tasks.
    public func run<T>(_ body: () throws -> T) rethrows -> T {
        if taskBindingDisabledForTesting.load(ordering: .relaxed) {
            KeychainBinding.replaceProcessBindingForTesting(binding)
            return try body()
        }
        return try KeychainBinding.$task.withValue(binding, operation: body)
    }

    /// Runs `body` with this device bound to the current task and its child tasks.
    public func run<T>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        if taskBindingDisabledForTesting.load(ordering: .relaxed) {
            KeychainBinding.replaceProcessBindingForTesting(binding)
            return try await body()
        }
        return try await KeychainBinding.$task.withValue(binding, operation: body, isolation: isolation)
    }

    /// Binds this device for the whole process, for code that hops to a DispatchQueue or a Thread (which
    /// lose task-locals); a task's own binding (`run { … }`) still comes first. Throws while
    /// another device is current. The binding keeps the device alive until ``resignCurrent()``.
    public func makeCurrent() throws(KeychainError) {
        try KeychainBinding.bindProcess(binding)
    }

    /// Ends ``makeCurrent()``'s binding (nothing if this device is not the process's).
    public func resignCurrent() {
        KeychainBinding.unbindProcess(owner: self)
    }

    /// The device calls go to here: the task's (`run { … }`), else the process's (``makeCurrent()``).
    public static var current: SimulatedDevice? { KeychainBinding.current?.owner as? SimulatedDevice }

    private var binding: KeychainBinding { KeychainBinding(connection: connection, owner: self) }
}
