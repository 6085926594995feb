import KeychainFSModel
import Foundation
import KeychainFSSodium

/// The keys in memory and the device state. Class keys are loaded exactly while their class is
/// available and wiped the moment it is not (docs/spec.md §3). Callers serialise access (the keychain's lock).
package struct Keybag {
    package let path: String
    package private(set) var record: KeybagRecord
    package private(set) var state: DeviceState
    private let deviceKey: GuardedKey
    private let deviceKEK: GuardedKey
    private var classKeys: [Accessibility: GuardedKey] = [:]
    private var metadataKeys: [Accessibility: GuardedKey] = [:]
    /// Classes A and C wrapped for `device unlock --biometry` (memory only; see ``BiometricEscrow``).
    private var escrow: BiometricEscrow?

    /// The device-bound key for the lookup columns; always available.
    package let indexKey: GuardedKey
    /// Guarded scratch memory for per-row keys (see ``ItemSealer/Keys``).
    private let rowKeyScratch = GuardedKey.random()

    /// Makes a new keybag with a fresh class key and metadata key per class (akpu only exists with a passcode).
    package static func create(at path: String, deviceKey: GuardedKey, hardness: PasscodeHardness, testDevice: Bool)
        throws(KeychainError)
    {
        let kek = KeyDerivation.subkey(of: deviceKey, context: "keychainfs.kek.device.v1")
        defer { kek.wipe() }
        var record = KeybagRecord(hardness: hardness, testDevice: testDevice)
        for a in Accessibility.allCases where a != .whenPasscodeSetThisDeviceOnly {
            seal(fresh: a, under: kek, into: &record)
        }
        try record.save(to: path)
    }

    /// Loads a keybag: class D always; every class when no passcode is set (the device boots unlocked).
    package init(path: String, deviceKey: GuardedKey) throws(KeychainError) {
        self.path = path
        self.record = try KeybagRecord.load(from: path)
        self.deviceKey = deviceKey
        self.deviceKEK = KeyDerivation.subkey(of: deviceKey, context: "keychainfs.kek.device.v1")
        self.indexKey = KeyDerivation.subkey(of: deviceKey, context: "keychainfs.index.v1")
        self.state = record.hasPasscode ? .beforeFirstUnlock : .noPasscode
        // A class whose keys are missing would read as "locked" forever: a damaged keybag, said so now.
        for a in Accessibility.allCases where a != .whenPasscodeSetThisDeviceOnly || record.hasPasscode {
            guard record.classKeys[a.rawValue] != nil, record.metadataKeys[a.rawValue] != nil else {
                throw KeychainError(
                    SecStatus.decode, "the keybag \(path) is damaged: the keys of class '\(a.rawValue)' are missing")
            }
        }
        do {
            try load(record.hasPasscode ? [.always, .alwaysThisDeviceOnly] : Accessibility.allCases, kek: deviceKEK)
        } catch {
            // No passcode is involved here: these classes are sealed under the device key alone.
            throw KeychainError(
                SecStatus.decode,
                "the device key does not open this vault's keybag \(path): it is not the key the vault was made with (check --device-key), or the keybag is damaged"
            )
        }
    }

    /// Loads a keybag, naming where the device key came from in the error when the two do not fit.
    package static func opening(_ path: String, deviceKey: GuardedKey, deviceKeyOrigin: String) throws(KeychainError)
        -> Keybag
    {
        do { return try Keybag(path: path, deviceKey: deviceKey) } catch
            where error.message.hasPrefix("the device key does not open")
        {
            throw KeychainError(error.status, error.message + " (device key: \(deviceKeyOrigin))")
        }
    }

    // MARK: Keys for items

    /// The keys of `accessibility`, or errSecInteractionNotAllowed while its class is unavailable.
    package func keys(for accessibility: Accessibility) throws(KeychainError) -> ItemSealer.Keys {
        guard state.allows(accessibility), let c = classKeys[accessibility], let m = metadataKeys[accessibility] else {
            throw .locked(accessibility.rawValue)
        }
        return ItemSealer.Keys(classKey: c, metadataKey: m, rowKey: rowKeyScratch)
    }

    // MARK: Transitions

    /// Lock: class A keys and class-A metadata keys are wiped now.
    package mutating func lock() {
        guard record.hasPasscode, state != .beforeFirstUnlock else { return }
        wipe { $0.tier == .a }
        state = .locked
    }

    /// Reboot: class A and C keys are wiped; the device waits for its first unlock.
    package mutating func reboot() {
        guard record.hasPasscode else { return }
        wipe { $0.tier != .d }
        dropBiometricEscrow()
        state = .beforeFirstUnlock
    }

    /// The passcode's key-encryption key: Argon2id(passcode) entangled with the device key. Slow by design;
    /// call it without holding the keychain's lock.
    package static func passcodeKEK(_ passcode: Data, salt: Data, hardness: PasscodeHardness, deviceKey: GuardedKey)
        throws(KeychainError) -> GuardedKey
    {
        let stretched = try stretch(passcode, salt: salt, hardness: hardness)
        defer { stretched.wipe() }
        return passcodeKEK(stretched: stretched, deviceKey: deviceKey)
    }

    /// The passcode's Argon2id key.
    package static func stretch(_ passcode: Data, salt: Data, hardness: PasscodeHardness) throws(KeychainError)
        -> GuardedKey
    {
        do { return try KeyDerivation.passcodeKey(passcode, salt: salt, hardness: hardness) } catch {
            throw KeychainError(SecStatus.allocate, "Argon2id failed: \(error)")
        }
    }

    /// The KEK of a passcode without a TPM share: its Argon2id key entangled with the device key.
    package static func passcodeKEK(stretched: GuardedKey, deviceKey: GuardedKey) -> GuardedKey {
        KeyDerivation.subkey(of: deviceKey, context: "keychainfs.kek.passcode.v1", input: stretched)
    }

    /// Unlock with a passcode's KEK: loads classes A and C, or throws errSecAuthFailed for a wrong passcode.
    package mutating func unlock(with kek: GuardedKey, at now: Date) throws(KeychainError) {
        guard record.hasPasscode else { return }
        try load(Accessibility.allCases.filter { $0.tier != .d }, kek: kek)
        CrashPoint.reach("unlock.afterKeysLoaded")
        state = .unlocked
        // As the SEP does after a passcode unlock: keep the class keys for Face ID, in memory only.
        dropBiometricEscrow()
        // (A lockout does not stop it: this passcode releases the lockout right after.)
        if record.biometry?.enrolled == true {
            escrow = BiometricEscrow(wrapping: classKeys.filter { $0.key.tier != .d }, passcodeUnlock: now)
        }
    }

    /// Forgets the biometric copy of the class keys: a passcode is needed again (reboot, enrolment, lockout).
    package mutating func dropBiometricEscrow() {
        escrow?.wipe()
        escrow = nil
    }

    /// `device unlock --biometry` on a matching face: loads classes A and C from the in-memory escrow.
    /// Refused (errSecAuthFailed) without a passcode unlock since boot/enrolment/lockout, or after 48 h.
    package mutating func unlockWithBiometry(at now: Date) throws(KeychainError) {
        guard record.hasPasscode, state != .unlocked else { return }  // nothing to open: the match is only recorded
        guard let escrow else {
            throw KeychainError(
                SecStatus.authFailed,
                "the passcode is required: no passcode unlock since the last reboot, enrolment or biometry lockout")
        }
        guard now.timeIntervalSince(escrow.passcodeUnlock) <= BiometricEscrow.passcodeInterval else {
            dropBiometricEscrow()
            throw KeychainError(
                SecStatus.authFailed, "the passcode is required: it was not entered in the last 48 hours")
        }
        let loaded = try escrow.unwrap()
        var keys: [(Accessibility, GuardedKey, GuardedKey)] = []
        for (a, c) in loaded {
            guard let sealed = record.metadataKeys[a.rawValue],
                let m = try? AEAD.openKey(sealed, key: c, associatedData: Self.metadataKeyAD(a))
            else {
                for (_, c) in loaded { c.wipe() }
                for (_, _, m) in keys { m.wipe() }
                throw KeychainError(
                    SecStatus.decode, "the keybag \(path) does not match the biometric copy of class '\(a.rawValue)'")
            }
            keys.append((a, c, m))
        }
        for (a, c, m) in keys {
            classKeys[a]?.wipe(); metadataKeys[a]?.wipe()
            classKeys[a] = c; metadataKeys[a] = m
        }
        state = .unlocked
    }

    /// Sets the first passcode: classes A and C are re-wrapped under it, the akpu class is created.
    package mutating func setPasscode(kek: GuardedKey, salt: Data, tpmShare: Data?, shareEscrow: Data?)
        throws(KeychainError)
    {
        guard !record.hasPasscode else { throw .param("a passcode is already set; use 'passcode change'") }
        var next = record
        next.passcodeSalt = salt
        next.passcodeTPMShare = tpmShare
        next.passcodeShareEscrow = shareEscrow
        for a in Accessibility.allCases where a.tier != .d && a != .whenPasscodeSetThisDeviceOnly {
            try rewrap(a, under: kek, into: &next)
        }
        Self.seal(fresh: .whenPasscodeSetThisDeviceOnly, under: kek, into: &next)
        try commit(next, crashPoint: "passcode.set.beforeKeybagRename")
        CrashPoint.reach("passcode.set.afterKeybagWrite")
        try load([.whenPasscodeSetThisDeviceOnly], kek: kek)
        state = .unlocked
    }

    /// Changes the passcode; `oldKEK` must unlock the current one.
    package mutating func changePasscode(
        oldKEK: GuardedKey, newKEK: GuardedKey, newSalt: Data, newTPMShare: Data?, newShareEscrow: Data?,
        newBootUnlock: BootUnlockSeal?, at now: Date
    ) throws(KeychainError) {
        try unlock(with: oldKEK, at: now)
        var next = record
        next.passcodeSalt = newSalt
        next.passcodeTPMShare = newTPMShare
        next.passcodeShareEscrow = newShareEscrow
        next.bootUnlock = newBootUnlock
        for a in Accessibility.allCases where a.tier != .d { try rewrap(a, under: newKEK, into: &next) }
        try commit(next, crashPoint: "passcode.change.beforeKeybagRename")
        CrashPoint.reach("passcode.change.afterKeybagWrite")
    }

    /// Removes the passcode (`kek` must unlock it): akpu keys are destroyed, A and C fall back to the device key.
    /// The record says the akpu items are still to be deleted; the caller deletes them, then clears the flag
    /// (an open that finds it set finishes the deletion).
    package mutating func removePasscode(kek: GuardedKey, at now: Date) throws(KeychainError) {
        try unlock(with: kek, at: now)
        var next = record
        next.passcodeSalt = nil
        next.passcodeTPMShare = nil
        next.passcodeShareEscrow = nil
        next.bootUnlock = nil
        next.akpuSweepPending = true
        next.classKeys[Accessibility.whenPasscodeSetThisDeviceOnly.rawValue] = nil
        next.metadataKeys[Accessibility.whenPasscodeSetThisDeviceOnly.rawValue] = nil
        for a in Accessibility.allCases where a.tier != .d && a != .whenPasscodeSetThisDeviceOnly {
            try rewrap(a, under: deviceKEK, into: &next)
        }
        try commit(next, crashPoint: "passcode.remove.beforeKeybagRename")
        CrashPoint.reach("passcode.remove.afterKeybagWrite")
        wipe { $0 == .whenPasscodeSetThisDeviceOnly }
        dropBiometricEscrow()
        state = .noPasscode
    }

    /// Persists the simulator's settings (failed attempts, lockout, auto-lock).
    package mutating func updateSettings(_ change: (inout KeybagRecord) -> Void) throws(KeychainError) {
        var next = record
        change(&next)
        try commit(next)
    }

    // MARK: Wrapping

    private static func classKeyAD(_ a: Accessibility) -> Data { Data("keychainfs.classkey.v1/\(a.rawValue)".utf8) }
    private static func metadataKeyAD(_ a: Accessibility) -> Data {
        Data("keychainfs.metadatakey.v1/\(a.rawValue)".utf8)
    }

    private static func seal(fresh a: Accessibility, under kek: GuardedKey, into record: inout KeybagRecord) {
        let classKey = GuardedKey.random()
        let metadataKey = GuardedKey.random()
        defer { classKey.wipe(); metadataKey.wipe() }
        record.classKeys[a.rawValue] = classKey.withBytes { AEAD.seal($0, key: kek, associatedData: classKeyAD(a)) }
        record.metadataKeys[a.rawValue] = metadataKey.withBytes {
            AEAD.seal($0, key: classKey, associatedData: metadataKeyAD(a))
        }
    }

    /// Re-seals a loaded class key under another KEK (its metadata key stays sealed under the class key).
    private func rewrap(_ a: Accessibility, under kek: GuardedKey, into record: inout KeybagRecord)
        throws(KeychainError)
    {
        guard let key = classKeys[a] else {
            throw KeychainError(SecStatus.internalError, "class key '\(a.rawValue)' is not loaded")
        }
        record.classKeys[a.rawValue] = key.withBytes { AEAD.seal($0, key: kek, associatedData: Self.classKeyAD(a)) }
    }

    /// Unwraps the given classes; all or nothing. A wrong KEK is errSecAuthFailed.
    private mutating func load(_ classes: [Accessibility], kek: GuardedKey) throws(KeychainError) {
        var loaded: [(Accessibility, GuardedKey, GuardedKey)] = []
        for a in classes {
            guard let sealedClass = record.classKeys[a.rawValue], let sealedMetadata = record.metadataKeys[a.rawValue]
            else { continue }
            do {
                let c = try AEAD.openKey(sealedClass, key: kek, associatedData: Self.classKeyAD(a))
                let m = try AEAD.openKey(sealedMetadata, key: c, associatedData: Self.metadataKeyAD(a))
                loaded.append((a, c, m))
            } catch {
                for (_, c, m) in loaded { c.wipe(); m.wipe() }
                throw KeychainError(SecStatus.authFailed, "the passcode is not correct")
            }
        }
        for (a, c, m) in loaded {
            classKeys[a]?.wipe(); metadataKeys[a]?.wipe()
            classKeys[a] = c; metadataKeys[a] = m
        }
    }

    private mutating func wipe(where predicate: (Accessibility) -> Bool) {
        for a in Accessibility.allCases where predicate(a) {
            classKeys.removeValue(forKey: a)?.wipe()
            metadataKeys.removeValue(forKey: a)?.wipe()
        }
    }

    private mutating func commit(_ next: KeybagRecord, crashPoint: String? = nil) throws(KeychainError) {
        try next.save(to: path, crashPoint: crashPoint)
        record = next
    }
}
