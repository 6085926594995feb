import Foundation
import KeychainFSModel
import KeychainFSSodium

extension Vault {
    /// Seals the vault's device key with the TPM `binding` names and removes its file (docs/tpm.md). The
    /// vault must not be open. Crash-safe: the sealed copy is written and fsynced, then the config names the
    /// TPM while still naming the file, then the file goes, then the config forgets it; running it again
    /// after an interruption finishes the job. Returns what the file was.
    package func sealDeviceKey(with binding: TPMBinding) throws(KeychainError) -> String {
        let lock = try VaultLock(self)
        defer { withExtendedLifetime(lock) {} }
        var config = try config()
        if config.deviceKeyTPM != nil {
            guard let leftover = config.deviceKeyPath else {
                throw .param("the device key of \(directory) is sealed by the TPM already")
            }
            return try forget(leftover, &config)  // an earlier run stopped before removing the file
        }
        let file = config.deviceKeyPath ?? defaultDeviceKeyPath
        let key = try DeviceKey.load(from: file)
        defer { key.wipe() }
        var sealed = stat()
        if lstat(sealedDeviceKeyPath, &sealed) == 0 {
            // Left by a run that stopped before the config named it: kept only if it holds this key.
            let earlier = try? SealedDeviceKey.load(binding: binding, from: sealedDeviceKeyPath)
            defer { earlier?.wipe() }
            guard let earlier, earlier.withBytes({ a in key.withBytes { b in a.elementsEqual(b) } }) else {
                throw .param("\(sealedDeviceKeyPath) exists and does not hold this vault's device key: move it away")
            }
        } else {
            try SealedDeviceKey.write(key, binding: binding, to: sealedDeviceKeyPath)
        }
        config.deviceKeyTPM = binding
        config.deviceKeyPath = file
        try save(config)
        CrashPoint.reach("seal-device-key.afterConfig")
        return try forget(file, &config)
    }

    private func forget(_ file: String, _ config: inout Config) throws(KeychainError) -> String {
        if unlink(file) != 0 && errno != ENOENT {
            throw KeychainError(SecStatus.io, "cannot remove \(file): \(String(cString: strerror(errno)))")
        }
        try FileIO.syncDirectory(of: file)
        config.deviceKeyPath = nil
        try save(config)
        return file
    }
}
