import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium

/// The vault's own sync files that hold secrets (the identity, the trust memory): sealed under the class C
/// key like the sync key, each bound to its purpose, so they open after the first unlock and never before.
extension Keychain {
    /// Seals `plain` under the class C key into `VAULT/sync/<file>`.
    func writeSyncSecret(_ plain: Data, _ file: String) throws(KeychainError) {
        try protection.withLock { keybag throws(KeychainError) in
            let classKey = try Self.syncClassKey(keybag)
            mkdir(syncDirectory, 0o700)
            try FileIO.writeAtomically(
                AEAD.seal(plain, key: classKey, associatedData: Self.secretBinding(file)),
                to: syncDirectory + "/" + file, mode: 0o600)
        }
    }

    /// The plaintext of `VAULT/sync/<file>`, nil if there is none.
    func readSyncSecret(_ file: String) throws(KeychainError) -> Data? {
        try protection.withLock { keybag throws(KeychainError) -> Data? in
            let classKey = try Self.syncClassKey(keybag)
            guard let sealed = try FileIO.read(syncDirectory + "/" + file) else { return nil }
            do { return try AEAD.open(sealed, key: classKey, associatedData: Self.secretBinding(file)) } catch {
                throw KeychainError(SecStatus.decode, "the vault's sync/\(file) does not open (it was modified)")
            }
        }
    }

    /// Removes `VAULT/sync/<file>` (gone already is fine).
    func removeSyncSecret(_ file: String) { unlink(syncDirectory + "/" + file) }

    private static func secretBinding(_ file: String) -> Data { Data("keychainfs.sync.secret.v2/\(file)".utf8) }
}
