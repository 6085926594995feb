import Foundation
import KeychainFSEngine
import KeychainFSSync
import KeychainFSModel

/// Sync's access to a vault no daemon serves: the in-process engine, held for one call at a time, so the
/// merge driver that git starts in between can open the vault too.
package struct InProcessSyncAccess: SyncKeychainAccess {
    /// The vault.
    package let vault: Vault

    /// Access to `vault` in this process.
    package init(vault: Vault) { self.vault = vault }

    package func with<T>(_ body: (Keychain) throws(KeychainError) -> T) throws(KeychainError) -> T {
        try InProcessEngines.shared.with(vault, body)
    }
}
