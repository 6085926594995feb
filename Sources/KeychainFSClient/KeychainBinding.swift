import KeychainFSEngine
import KeychainFSModel
import Synchronization

/// Where this task's SecItem, SecKey and LAContext calls go when a test bound them to an engine of its
/// own (KeychainTesting's `SimulatedDevice`), checked before `KEYCHAIN_VAULT`: the task's binding (it
/// follows child tasks), else the process's (for code that hops to a DispatchQueue or a Thread).
package final class KeychainBinding: Sendable {
    /// The connection calls use.
    package let connection: KeychainConnection
    /// Who made the binding (the simulated device), so that it can be found again.
    package let owner: any AnyObject & Sendable

    package init(connection: KeychainConnection, owner: any AnyObject & Sendable) {
        self.connection = connection
        self.owner = owner
    }

    /// This task's binding.
    @TaskLocal package static var task: KeychainBinding?
    private static let process = Mutex<KeychainBinding?>(nil)

    /// The binding in force: the task's, else the process's; nil: `KEYCHAIN_VAULT` decides.
    package static var current: KeychainBinding? { task ?? process.withLock { $0 } }

    /// The process-wide binding.
    package static var processBinding: KeychainBinding? { process.withLock { $0 } }

    /// Binds the whole process. Binding another owner while one is bound would silently mix two devices'
    /// calls: it is refused.
    package static func bindProcess(_ binding: KeychainBinding) throws(KeychainError) {
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
    package static func unbindProcess(owner: AnyObject) {
        process.withLock { slot in if slot?.owner === owner { slot = nil } }
    }

    /// Test-only: replaces the process-wide binding without the check (what a missing task-local binding would do).
    package static func replaceProcessBindingForTesting(_ binding: KeychainBinding?) {
        process.withLock { $0 = binding }
    }
}
