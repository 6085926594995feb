import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation

/// `KEYCHAINFS_TEST_DISABLE_GUARDS=sync-untrusted-tree` (the lock guards' variable): for a test device
/// only, a clone takes the remote's tree as it is (links and submodules included, core.symlinks left on),
/// as it once did; `sync-signatures`: item files are not authenticated (``CircleKeys``). So that the
/// tests of those protections show they can fail.
package enum SyncTestSwitch {
    package static let untrustedTree = "sync-untrusted-tree"
    /// Item files are applied without checking who signed them, their signature or their file name.
    package static let signatures = "sync-signatures"

    /// Whether `name` is switched off for `vault` (never for a vault that is not a test device).
    package static func disables(
        _ name: String, _ vault: Vault, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        TestSwitches.isOff(name, testDevice: (try? vault.config())?.testDevice ?? false, environment: environment)
    }
}
