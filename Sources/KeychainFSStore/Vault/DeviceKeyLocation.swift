import KeychainFSModel
import Foundation
import KeychainFSSodium

/// Where device keys live by default: the user's state directory (`$XDG_STATE_HOME/keychainfs/`, else
/// `~/.local/state/keychainfs/`, 0700), one 0600 file per vault, so that a copied vault directory is unreadable.
public enum DeviceKeyLocation {
    /// The directory for device keys (not created).
    public static func directory() throws(KeychainError) -> String {
        let environment = ProcessInfo.processInfo.environment
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/keychainfs" }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            throw KeychainError(
                SecStatus.notAvailable,
                "neither XDG_STATE_HOME nor HOME is set: choose where the device key goes with --device-key")
        }
        return home + "/.local/state/keychainfs"
    }

    /// A fresh file name for a new vault's device key, in a private directory made if missing.
    package static func newDefaultPath() throws(KeychainError) -> String {
        let directory = try directory()
        try VaultDirectory.makePrivateStateDirectory(directory)
        let name = Sodium.randomBytes(12).map { String(format: "%02x", $0) }.joined()
        return directory + "/" + name + ".device.key"
    }
}

extension Vault {
    /// Moves a device key kept inside the vault (format 1's default) to `destination` (default: a new file
    /// in the state directory). The vault must not be open. Crash-safe: the key is written and fsynced
    /// outside, then the config points at it, and only then is the inside copy removed; running it again
    /// after an interruption finishes the job. Returns the new path.
    public func moveDeviceKeyOut(to destination: String? = nil) throws(KeychainError) -> String {
        let lock = try VaultLock(self)
        defer { withExtendedLifetime(lock) {} }
        var config = try config()
        if config.deviceKeyTPM != nil {
            throw .param("the device key of \(directory) is sealed by the TPM: it has no file to move")
        }
        if let outside = config.deviceKeyPath {
            // An earlier run stopped after pointing the config outside: finish by removing the inside copy.
            if FileManager.default.fileExists(atPath: defaultDeviceKeyPath), try sameKey(outside, defaultDeviceKeyPath)
            {
                unlink(defaultDeviceKeyPath)
            }
            throw .param("the device key of \(directory) is already outside the vault, at \(outside)")
        }
        guard var bytes = try FileIO.read(defaultDeviceKeyPath) else {
            throw KeychainError(SecStatus.notAvailable, "no device key inside \(directory) to move")
        }
        defer { Sodium.wipe(&bytes) }
        let target: String
        if let destination {
            target = URL(fileURLWithPath: destination).standardizedFileURL.path
        } else {
            target = try DeviceKeyLocation.newDefaultPath()
        }
        do {
            try FileIO.writeExclusively(bytes, to: target, mode: 0o600)
        } catch let error where error.status == SecStatus.param {
            throw .param("\(target) already exists: choose another file with --to")
        }
        config.deviceKeyPath = target
        try save(config)
        CrashPoint.reach("move-device-key.afterConfig")
        unlink(defaultDeviceKeyPath)
        return target
    }

    private func sameKey(_ a: String, _ b: String) throws(KeychainError) -> Bool {
        guard var x = try FileIO.read(a), var y = try FileIO.read(b) else { return false }
        defer { Sodium.wipe(&x); Sodium.wipe(&y) }
        return x == y
    }
}
