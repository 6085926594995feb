import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// The keychain a credential helper uses, found without configuration: `$KEYCHAIN_VAULT`, else the
/// default vault (``ClientEnvironment/defaultVault(_:)``); through its daemon when one serves it (so
/// the device lock and the audit log apply), else in-process. A helper that only reads never creates
/// a vault: with none there, nothing is stored.
package struct CredentialKeychain {
    private let connection: KeychainConnection?

    /// Opens the vault; `creatingVault` makes it (without a passcode) when it does not exist yet.
    package init(creatingVault: Bool, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(KeychainError)
    {
        let vault = ClientEnvironment.defaultVault(environment)
        if !creatingVault, !vault.exists {
            connection = nil
            return
        }
        connection = try KeychainConnection(
            vault: vault, caller: ClientEnvironment.caller(environment), createIfMissing: creatingVault)
    }

    /// SecItemCopyMatching; nil when nothing matches (errSecItemNotFound).
    package func find(_ query: KeychainDictionary) throws(KeychainError) -> KeychainValue? {
        guard let connection else { return nil }
        do { return try connection.copyMatching(query) } catch let error where error.status == SecStatus.itemNotFound {
            return nil
        }
    }

    /// SecItemAdd, and on errSecDuplicateItem SecItemUpdate of `changes` on the item `query` names.
    package func addOrUpdate(_ item: KeychainDictionary, query: KeychainDictionary, changes: KeychainDictionary)
        throws(KeychainError)
    {
        guard let connection else { throw KeychainError(SecStatus.notAvailable, "no vault is open for writing") }
        do { _ = try connection.add(item) } catch let error where error.status == SecStatus.duplicateItem {
            try connection.update(query, changes)
        }
    }

    /// SecItemUpdate: `changes` on the items `query` matches, in one transaction.
    package func update(_ query: KeychainDictionary, _ changes: KeychainDictionary) throws(KeychainError) {
        guard let connection else { throw KeychainError(SecStatus.notAvailable, "no vault is open for writing") }
        try connection.update(query, changes)
    }

    /// SecItemAdd.
    package func add(_ item: KeychainDictionary) throws(KeychainError) {
        guard let connection else { throw KeychainError(SecStatus.notAvailable, "no vault is open for writing") }
        _ = try connection.add(item)
    }

    /// SecItemDelete; false when nothing matched.
    @discardableResult
    package func delete(_ query: KeychainDictionary) throws(KeychainError) -> Bool {
        guard let connection else { return false }
        do {
            try connection.delete(query)
        } catch let error where error.status == SecStatus.itemNotFound { return false }
        return true
    }

    /// What a helper says on standard error when a call fails: why, and for a locked device what to do.
    /// Engine messages name items and statuses, never a secret.
    package static func explain(_ error: KeychainError) -> String {
        if error.status == SecStatus.interactionNotAllowed {
            return
                "the keychain is locked (errSecInteractionNotAllowed, \(error.status)): unlock it with 'keychainfs device unlock'"
        }
        return "\(error.message) (OSStatus \(error.status))"
    }
}
