import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium

/// The vault's sync key (docs/spec.md §14): 32 random bytes shared by the members of a circle for as long as
/// it lives (item files' names, the version memory, invitations' expiry; items themselves are sealed with
/// the epoch's key), kept in `sync/key` sealed under the class C key: available after first unlock, never before.
extension Keychain {
    /// The directory of the vault's sync state: the key, the clone and what was exported.
    package var syncDirectory: String { vault.directory + "/sync" }
    package var syncKeyPath: String { syncDirectory + "/key" }
    private static let syncKeyBinding = Data("keychainfs.sync-key.v1".utf8)

    /// Whether this vault has joined a sync group.
    package var hasSyncKey: Bool { FileManager.default.fileExists(atPath: syncKeyPath) }

    /// Stores `key` as the vault's sync key (refused if it has one).
    package func installSyncKey(_ key: GuardedKey) throws(KeychainError) {
        try protection.withLock { keybag throws(KeychainError) in
            let classKey = try Self.syncClassKey(keybag)
            mkdir(syncDirectory, 0o700)
            let sealed = key.withBytes { AEAD.seal($0, key: classKey, associatedData: Self.syncKeyBinding) }
            do { try FileIO.writeExclusively(sealed, to: syncKeyPath, mode: 0o600) } catch {
                throw KeychainError(
                    SecStatus.duplicateItem, "this vault already has a sync key (sync init or join ran before)")
            }
        }
    }

    /// Removes the sync key: only to undo an init or join that failed after installing it.
    package func removeSyncKey() throws(KeychainError) {
        guard unlink(syncKeyPath) == 0 || errno == ENOENT else {
            throw KeychainError(SecStatus.io, "cannot remove \(syncKeyPath): \(String(cString: strerror(errno)))")
        }
    }

    /// A sync key with no clone beside it syncs nothing (an init of an older release failed after
    /// installing it): init and join set it aside while they run, put it back if they fail, and drop it
    /// once they succeed. Returns whether there was one.
    package func setAsideSyncKey() throws(KeychainError) -> Bool {
        guard rename(syncKeyPath, setAsideKeyPath) == 0 else {
            if errno == ENOENT { return false }
            throw KeychainError(SecStatus.io, "cannot set \(syncKeyPath) aside: \(String(cString: strerror(errno)))")
        }
        return true
    }

    /// Puts back the key ``setAsideSyncKey()`` moved (`keep`), or drops it.
    package func endSetAside(keep: Bool) {
        if keep { rename(setAsideKeyPath, syncKeyPath) } else { unlink(setAsideKeyPath) }
    }

    private var setAsideKeyPath: String { syncKeyPath + ".set-aside" }

    /// Calls `body` with the keys derived from the sync key, wiped afterwards.
    package func withSyncKeys<T>(_ body: (SyncKeys) throws(KeychainError) -> T) throws(KeychainError) -> T {
        let key = try loadSyncKey()
        defer { key.wipe() }
        let keys = SyncKeys(syncKey: key)
        defer { keys.wipe() }
        return try body(keys)
    }

    /// Calls `body` with the sync key itself (for an invitation), wiped afterwards.
    package func withSyncKey<T>(_ body: (GuardedKey) throws(KeychainError) -> T) throws(KeychainError) -> T {
        let key = try loadSyncKey()
        defer { key.wipe() }
        return try body(key)
    }

    private func loadSyncKey() throws(KeychainError) -> GuardedKey {
        try protection.withLock { keybag throws(KeychainError) -> GuardedKey in
            let classKey = try Self.syncClassKey(keybag)
            guard let sealed = try FileIO.read(syncKeyPath) else {
                throw KeychainError(
                    SecStatus.itemNotFound,
                    "this vault has no sync key: run 'keychainfs sync init' or 'sync join' first")
            }
            do { return try AEAD.openKey(sealed, key: classKey, associatedData: Self.syncKeyBinding) } catch {
                throw KeychainError(SecStatus.decode, "the vault's sync key does not open (sync/key was modified)")
            }
        }
    }

    static func syncClassKey(_ keybag: Keybag) throws(KeychainError) -> GuardedKey {
        do { return try keybag.keys(for: .afterFirstUnlock).classKey } catch {
            throw KeychainError(
                SecStatus.interactionNotAllowed,
                "sync needs the sync key, a class C key: it is unavailable until the device's first unlock")
        }
    }
}
