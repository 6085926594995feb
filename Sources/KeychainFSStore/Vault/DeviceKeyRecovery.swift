import Foundation
import KeychainFSModel
import KeychainFSSodium
import KeychainFSTPM

/// The recovery key of a TPM-sealed device key (docs/tpm.md, Recovery): 32 random bytes the user keeps
/// away from the machine, in a file written once; the vault keeps the device key sealed under it
/// (`device-key.recovery`), so that a changed boot state or another TPM does not lose the vault.
extension Vault {
    public var deviceKeyRecoveryPath: String { directory + "/device-key.recovery" }

    static let recoveryPrefix = "keychainfs-recovery-key-v1:"
    static let recoveryContext = "keychainfs device-key recovery v1"
    static let escrowContext = "keychainfs passcode-share escrow v1"

    /// The X25519 secret a passcode's share is sealed to (``PasscodeShare``), derived from the recovery key.
    static func escrowSecret(_ recovery: GuardedKey) -> GuardedKey {
        KeyDerivation.subkey(of: recovery, context: escrowContext)
    }

    /// Makes a recovery key for the device key in force and writes it to `file` (which must not exist,
    /// 0600); the vault's recovery copy is replaced only once the file is complete.
    package func writeRecoveryKey(to file: String) throws(KeychainError) {
        let lock = try VaultLock(self)
        defer { withExtendedLifetime(lock) {} }
        let (deviceKey, _) = try openDeviceKey()
        defer { deviceKey.wipe() }
        let recovery = GuardedKey.random()
        defer { recovery.wipe() }
        var text = Data((Self.recoveryPrefix + Self.hex(recovery) + "\n").utf8)
        defer { Sodium.wipe(&text) }
        do {
            try FileIO.writeExclusively(text, to: file, mode: 0o600)
        } catch let error where error.status == SecStatus.param {
            throw .param("\(file) already exists: name a new file for the recovery key")
        }
        let wrapping = KeyDerivation.subkey(of: recovery, context: Self.recoveryContext)
        defer { wrapping.wipe() }
        let copy = deviceKey.withBytes { AEAD.seal($0, key: wrapping, associatedData: Data(Self.recoveryContext.utf8)) }
        let escrow = Self.escrowSecret(recovery)
        defer { escrow.wipe() }
        var config = try config()
        let publicKey = SealedBox.publicKey(secret: escrow)
        config.recoveryPublicKey = publicKey
        config.recoveryPublicKeyTag = Self.recoveryTag(publicKey, deviceKey: deviceKey)
        do {
            try FileIO.writeAtomically(copy, to: deviceKeyRecoveryPath, mode: 0o600)
            try save(config)
        } catch {
            unlink(file)
            throw error
        }
    }

    /// The device key, from the vault's recovery copy and the recovery key in `file`, checked against the
    /// keybag; and the recovery key's escrow secret (a passcode's share is sealed to it).
    package func recoverDeviceKey(from file: String) throws(KeychainError) -> (key: GuardedKey, escrow: GuardedKey) {
        guard let copy = try FileIO.read(deviceKeyRecoveryPath, limit: 4096, what: "a recovery copy") else {
            throw KeychainError(
                SecStatus.notAvailable,
                "\(directory) has no recovery copy of its device key (made with --recovery-key): restore a backup")
        }
        guard var text = try FileIO.read(file, limit: 4096, what: "a recovery key") else {
            throw KeychainError(SecStatus.param, "no recovery key at \(file)")
        }
        defer { Sodium.wipe(&text) }
        let recovery = try Self.parseRecoveryKey(text, file: file)
        defer { recovery.wipe() }
        let wrapping = KeyDerivation.subkey(of: recovery, context: Self.recoveryContext)
        defer { wrapping.wipe() }
        let key: GuardedKey
        do { key = try AEAD.openKey(copy, key: wrapping, associatedData: Data(Self.recoveryContext.utf8)) } catch {
            throw KeychainError(SecStatus.authFailed, "the recovery key in \(file) is not this vault's")
        }
        do { _ = try Keybag(path: keybagPath, deviceKey: key) } catch {
            key.wipe()
            throw error
        }
        return (key, Self.escrowSecret(recovery))
    }

    /// Seals the device key anew, from the recovery key in `file`, to the PCRs' values now (after a changed
    /// boot state) or with another TPM; `tcti` and `pcrs` default to the vault's. Running it again after an
    /// interruption is safe. Returns the binding now in force.
    /// A passcode's share moves too (it is sealed to the recovery key as well): `passcode` (asked only when
    /// one is set) seals it in the new TPM under that passcode's authorization, once it opens the keybag.
    package func resealDeviceKey(
        from file: String, tcti: String?, pcrs: PCRSelection?, passcode: () throws -> Data
    ) throws(KeychainError) -> TPMBinding {
        let lock = try VaultLock(self)
        defer { withExtendedLifetime(lock) {} }
        var config = try config()
        guard let old = config.deviceKeyTPM else {
            throw .param("the device key of \(directory) is a file, not sealed by a TPM: nothing to recover")
        }
        let binding = TPMBinding(tcti: tcti ?? old.tcti, pcrs: pcrs ?? old.pcrs)
        let (key, escrow) = try recoverDeviceKey(from: file)
        defer { key.wipe(); escrow.wipe() }
        var keybag = try Keybag(path: keybagPath, deviceKey: key)
        let movedShare =
            try keybag.record.passcodeTPMShare == nil
            ? nil
            : PasscodeShare.reseal(
                keybag.record, escrow: escrow, deviceKey: key, binding: binding, passcode: passcode
            ) { kek throws(KeychainError) in
                try keybag.unlock(with: kek, at: Date())
            }
        try SealedDeviceKey.replace(key, binding: binding, at: sealedDeviceKeyPath)
        if let movedShare { try keybag.updateSettings { $0.passcodeTPMShare = movedShare } }
        config.deviceKeyTPM = binding
        try save(config)
        return binding
    }

    static func recoveryTag(_ publicKey: Data, deviceKey: GuardedKey) -> Data {
        let key = KeyDerivation.subkey(of: deviceKey, context: "keychainfs recovery public key v1")
        defer { key.wipe() }
        return KeyDerivation.keyedHash([publicKey], key: key, outputBytes: 32)
    }

    /// The recovery key's public key a passcode's share is sealed to, checked against its tag; nil without a
    /// recovery key.
    package func recoveryPublicKey(deviceKey: GuardedKey) throws(KeychainError) -> Data? {
        let config = try config()
        guard let publicKey = config.recoveryPublicKey else { return nil }
        guard let tag = config.recoveryPublicKeyTag,
            Sodium.constantTimeEqual(tag, Self.recoveryTag(publicKey, deviceKey: deviceKey))
        else {
            throw KeychainError(
                SecStatus.decode,
                "the recovery key's public key in \(configPath) is not this vault's (it was changed): no passcode "
                    + "share is sealed to it; make a new recovery key (docs/tpm.md, Recovery)")
        }
        return publicKey
    }

    static func hex(_ key: GuardedKey) -> String {
        key.withBytes { bytes in
            stride(from: 0, to: bytes.count, by: 4).map { start in
                bytes[start..<start + 4].map { String(format: "%02x", $0) }.joined()
            }.joined(separator: "-")
        }
    }

    static func parseRecoveryKey(_ text: Data, file: String) throws(KeychainError) -> GuardedKey {
        let written = String(decoding: text, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let digits = Array(written.hasPrefix(recoveryPrefix) ? written.dropFirst(recoveryPrefix.count) : "")
            .filter { $0 != "-" }
        guard digits.count == 2 * GuardedKey.byteCount, digits.allSatisfy(\.isHexDigit) else {
            throw KeychainError(SecStatus.param, "\(file) holds no keychainfs recovery key")
        }
        return GuardedKey.filled { bytes in
            for index in 0..<GuardedKey.byteCount {
                bytes[index] = UInt8(String(digits[2 * index...2 * index + 1]), radix: 16)!
            }
        }
    }
}
