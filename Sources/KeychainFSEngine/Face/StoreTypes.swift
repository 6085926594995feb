import KeychainFSStore

// The store's types that are part of the engine's face: a vault's address and lock file, the device's
// state, files read from outside. Other targets name them through the engine and never import the store.

/// A vault directory: its files and the device key's location.
public typealias Vault = KeychainFSStore.Vault
/// The lock file that makes one daemon or in-process engine the vault's only writer.
public typealias VaultLock = KeychainFSStore.VaultLock
/// The same lock taken by an in-process client for one call at a time.
public typealias VaultCallLock = KeychainFSStore.VaultCallLock
/// The device's lock state (before first unlock, locked, unlocked).
public typealias DeviceState = KeychainFSStore.DeviceState
/// A file a user names, opened as the rules for outside files say (regular, no symlink, bounded size).
public typealias OutsideFile = KeychainFSStore.OutsideFile
/// The vault's way of writing a file: beside it, never through a planted link, fsynced and renamed over it.
package typealias FileIO = KeychainFSStore.FileIO
/// Which TPM seals a vault's device key, and to which PCRs (docs/tpm.md).
package typealias TPMBinding = KeychainFSStore.TPMBinding
/// SHA-256 PCRs a sealed device key is bound to.
package typealias PCRSelection = KeychainFSStore.PCRSelection
/// The passcode's KEK sealed to boot-state PCRs, for boot unlock (docs/tpm.md).
package typealias BootUnlockSeal = KeychainFSStore.BootUnlockSeal
