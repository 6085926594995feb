import KeychainStore

// The store's types that are part of the engine's face: a vault's address and lock file, the device's
// state, files read from outside. Other targets name them through the engine and never import the store.

/// A vault directory: its files and the device key's location.
public typealias Vault = KeychainStore.Vault
/// The lock file that makes one daemon or in-process engine the vault's only writer.
public typealias VaultLock = KeychainStore.VaultLock
/// The same lock taken by an in-process client for one call at a time.
public typealias VaultCallLock = KeychainStore.VaultCallLock
/// The device's lock state (before first unlock, locked, unlocked).
public typealias DeviceState = KeychainStore.DeviceState
/// A file a user names, opened as the rules for outside files say (regular, no symlink, bounded size).
public typealias OutsideFile = KeychainStore.OutsideFile
/// The vault's way of writing a file: beside it, never through a planted link, fsynced and renamed over it.
package typealias FileIO = KeychainStore.FileIO
