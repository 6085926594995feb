import KeychainEngine
import KeychainModel
import Synchronization

/// Where this task's SecItem, SecKey and LAContext calls go when a test bound them to an engine of its
/// own (KeychainTesting's `SimulatedDevice`), checked before `KEYCHAIN_VAULT`: the task's binding (it
/// follows child tasks), else the process's (for code that hops to a DispatchQueue or a Thread).
public final class KeychainBinding: Sendable {
    /// The connection calls use.
    public let connection: KeychainConnection
    /// Who made the binding (the simulated device), so that it can be found again.
    public let owner: any AnyObject & Sendable

    public init(connection: KeychainConnection, owner: any AnyObject & Sendable) {
        self.connection = connection
        self.owner = owner
    }

    /// This task's binding.
    @TaskLocal public static var task: KeychainBinding?
    private static let process = Mutex<KeychainBinding?>(nil)

    /// The binding in force: the task's, else the process's; nil: `KEYCHAIN_VAULT` decides.
    public static var current: KeychainBinding? { task ?? process.withLock { $0 } }

    /// The process-wide binding.
    public static var processBinding: KeychainBinding? { process.withLock { $0 } }

    /// Binds the whole process. Binding another owner while one is bound would silently mix two devices'
    /// calls: it is refused.
    public static func bindProcess(_ binding: KeychainBinding) throws(KeychainError) {
        try process.withLock { slot throws(KeychainError) in
            if let bound = slot, bound.owner !== binding.owner {
                throw KeychainError(
                    SecStatus.param,
                    "another simulated device is current for this process: call resignCurrent() on it first")
            }
            slot = binding
        }
    }

    /// Ends the process-wide binding if `owner` holds it.
    public static func unbindProcess(owner: AnyObject) {
        process.withLock { slot in if slot?.owner === owner { slot = nil } }
    }

    /// Test-only: replaces the process-wide binding without the check (what a missing task-local binding would do).
    public static func replaceProcessBindingForTesting(_ binding: KeychainBinding?) {
        process.withLock { $0 = binding }
    }
}
