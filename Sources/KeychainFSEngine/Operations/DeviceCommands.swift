import KeychainFSModel
import KeychainFSStore
import Foundation
import GRDB
import KeychainFSSodium

/// What `keychainfs device status` shows.
public struct DeviceStatus: Sendable, Equatable {
    public var state: DeviceState
    public var passcodeSet: Bool
    public var failedAttempts: Int
    /// Unlock attempts are refused until then (nil: not locked out).
    public var lockedOutUntil: Date?
    /// Seconds after an unlock at which the device locks itself (nil: never).
    public var autoLockSeconds: Int?
    public var testDevice: Bool
}

/// The device-lock simulator (docs/spec.md §3). Each command returns once its state is in force.
extension Keychain {
    public func deviceStatus() -> DeviceStatus {
        protection.withLock { kb in
            let r = kb.record
            let lockout = r.lockedOutUntil.flatMap { $0 > now() && delaysLockout(r) ? $0 : nil }
            return DeviceStatus(
                state: kb.state, passcodeSet: r.hasPasscode, failedAttempts: r.failedAttempts,
                lockedOutUntil: lockout, autoLockSeconds: r.autoLockSeconds, testDevice: r.testDevice)
        }
    }

    /// Locks the device: class A keys are wiped before this returns. Without a passcode it changes nothing.
    public func lockDevice() {
        protection.withLock { $0.lock() }
        noteChange(.device)
    }

    /// Simulates a reboot: classes A and C become unavailable until the next unlock.
    public func rebootDevice() {
        protection.withLock { $0.reboot() }
        noteChange(.device)
    }

    /// Unlocks with `passcode`. Wrong passcodes count towards the escalating delays.
    public func unlockDevice(passcode: Data) throws(KeychainError) {
        try oneAttemptAtATime { () throws(KeychainError) in
            guard deviceStatus().passcodeSet else { return }
            defer { noteChange(.device) }
            try verifyingPasscode(passcode) { keybag, kek throws(KeychainError) in
                try keybag.unlock(with: kek, at: now())
            }
            sealRowShapes()  // rows of an older format whose class was locked until now
            releaseBiometryLockout()  // a correct passcode ends a biometry lockout (docs/spec.md §11)
            scheduleAutoLock()
        }
    }

    /// Sets the first passcode; the device is unlocked afterwards.
    public func setPasscode(_ passcode: Data) throws(KeychainError) {
        try Self.validate(passcode)
        try oneAttemptAtATime { () throws(KeychainError) in
            defer { noteChange(.device) }
            let (salt, hardness, alreadySet) = protection.withLock {
                (Sodium.randomBytes(KeyDerivation.saltBytes), $0.record.hardness, $0.record.hasPasscode)
            }
            if alreadySet { throw .param("a passcode is already set; use 'passcode change'") }
            let (kek, share, escrow) = try newPasscodeKEK(passcode, salt: salt, hardness: hardness)
            defer { kek.wipe() }
            try protection.withLock { keybag throws(KeychainError) in
                try keybag.setPasscode(kek: kek, salt: salt, tpmShare: share, shareEscrow: escrow)
            }
            scheduleAutoLock()
        }
    }

    /// Changes the passcode; `old` must be the current one.
    public func changePasscode(old: Data, new: Data) throws(KeychainError) {
        try Self.validate(new)
        try oneAttemptAtATime { () throws(KeychainError) in
            defer { noteChange(.device) }
            let (salt, hardness, isSet) = protection.withLock {
                (Sodium.randomBytes(KeyDerivation.saltBytes), $0.record.hardness, $0.record.hasPasscode)
            }
            guard isSet else { throw .param("no passcode is set") }
            let (newKEK, newShare, newEscrow) = try newPasscodeKEK(new, salt: salt, hardness: hardness)
            defer { newKEK.wipe() }
            let newBootUnlock = try resealedBootUnlock(newKEK)
            try verifyingPasscode(old) { keybag, oldKEK throws(KeychainError) in
                try keybag.changePasscode(
                    oldKEK: oldKEK, newKEK: newKEK, newSalt: salt, newTPMShare: newShare, newShareEscrow: newEscrow,
                    newBootUnlock: newBootUnlock, at: now())
            }
            scheduleAutoLock()
        }
    }

    /// Removes the passcode (`current` must be it) and deletes every akpu item, as iOS does.
    /// Returns how many items were deleted.
    @discardableResult
    public func removePasscode(current: Data) throws(KeychainError) -> Int {
        try oneAttemptAtATime { () throws(KeychainError) -> Int in try removingPasscode(current) }
    }

    private func removingPasscode(_ current: Data) throws(KeychainError) -> Int {
        var deleted: [Data] = []
        // The deleted items as every delete reports them, so that the mount drops the kernel's entries of
        // them too (a name added again was ENOENT while `ls` listed it); then the device's change.
        defer {
            if !deleted.isEmpty { noteChange(.items(changed: deleted)) }
            noteChange(.device)
        }
        return try verifyingPasscode(current) { keybag, kek throws(KeychainError) -> Int in
            // The keybag first (it verifies the passcode and marks the sweep pending), then the items: a crash
            // in between leaves a vault without a passcode whose next open deletes the akpu items.
            try keybag.removePasscode(kek: kek, at: now())
            deleted = try sweepAkpuItems(&keybag)
            return deleted.count
        }
    }

    /// Deletes every akpu item (their class key is gone) and clears the keybag's pending-sweep flag; returns
    /// the deleted items' persistent references.
    func sweepAkpuItems(_ keybag: inout Keybag) throws(KeychainError) -> [Data] {
        let deleted = try store.write(crashPoint: "passcode.remove.beforeItemsCommit") { db -> [Data] in
            var references: [Data] = []
            for schema in Schema.storedClasses {
                references += try ItemTable.delete(
                    db, schema, matching: ItemTable.Filter(accessibility: .whenPasscodeSetThisDeviceOnly)
                ).map { persistentReference(uuid: $0, schema) }
            }
            return references
        }
        try keybag.updateSettings { $0.akpuSweepPending = nil }
        return deleted
    }

    /// Sets (or, with nil, turns off) the auto-lock delay after an unlock.
    public func setAutoLock(seconds: Int?) throws(KeychainError) {
        if let seconds, seconds <= 0 { throw .param("auto-lock needs a positive number of seconds, or 'off'") }
        try protection.withLock { keybag throws(KeychainError) in
            try keybag.updateSettings { $0.autoLockSeconds = seconds }
        }
        scheduleAutoLock()
    }

    /// Number of items per class, for `status`.
    public func itemCounts() throws(KeychainError) -> [String: Int] {
        try store.read { db in
            var counts: [String: Int] = [:]
            for schema in Schema.storedClasses {
                counts[schema.code] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(schema.code)") ?? 0
            }
            return counts
        }
    }

    // MARK: Passcode checks

    static func validate(_ passcode: Data) throws(KeychainError) {
        guard !passcode.isEmpty, passcode.count <= 1024 else { throw .param("a passcode must be 1 to 1024 bytes long") }
    }

    /// Runs `body` holding the passcode gate: passcode attempts, sets, changes and removals run one at a
    /// time, as on iOS. Parallel attempts cannot all pass the lockout check before any of them is counted,
    /// a burst costs one Argon2id's memory at a time, and a removal cannot interleave with a change.
    func oneAttemptAtATime<T>(_ body: () throws(KeychainError) -> T) throws(KeychainError) -> T {
        passcodeGate.lock()
        defer { passcodeGate.unlock() }
        return try body()
    }

    /// Whether wrong passcodes delay the next attempt: always, except on a test device on the wall clock
    /// (where a test would wait in earnest); a virtual clock's test advances past the delay instead. A TPM's
    /// lockout holds on every device: the TPM enforces it anyway.
    func delaysLockout(_ record: KeybagRecord) -> Bool {
        !record.testDevice || clock.isVirtual || record.passcodeTPMShare != nil
    }

    /// The TPM refuses every authorization for now (its dictionary-attack protection, after wrong passcodes
    /// here or elsewhere): not an attempt; the device waits as long as the TPM takes to forgive one failure.
    private func tpmLockout(_ interval: Int?, _ keybag: inout Keybag) throws(KeychainError) -> KeychainError {
        if let interval {
            try keybag.updateSettings { $0.lockedOutUntil = now().addingTimeInterval(TimeInterval(interval)) }
        }
        return KeychainError(
            SecStatus.authFailed,
            "the TPM refuses passcode attempts for now (its dictionary-attack lockout, after too many wrong ones)"
                + (interval.map { ": try again in \($0) s" } ?? ""))
    }

    /// The lockout in force, as an error (nil: attempts are allowed).
    private func lockout(_ record: KeybagRecord) -> KeychainError? {
        guard let until = record.lockedOutUntil, until > now(), delaysLockout(record) else { return nil }
        return KeychainError(
            SecStatus.authFailed,
            "too many wrong passcodes: try again in \(Int(until.timeIntervalSince(now()).rounded(.up))) s")
    }

    /// Runs `body` with the KEK of `passcode` (derived without holding the keybag's lock, under the passcode
    /// gate), counting a wrong passcode as a failed attempt and refusing attempts during a lockout.
    func verifyingPasscode<T>(_ passcode: Data, _ body: (inout Keybag, GuardedKey) throws(KeychainError) -> T)
        throws(KeychainError) -> T
    {
        let record = protection.withLock { $0.record }
        guard record.hasPasscode, let salt = record.passcodeSalt else { throw .param("no passcode is set") }
        if let refusal = lockout(record) { throw refusal }
        let answer = try attemptedPasscodeKEK(passcode, salt: salt, record: record)
        var kek: GuardedKey?
        if case .kek(let key) = answer { kek = key }
        defer { kek?.wipe() }
        return try protection.withLock { keybag throws(KeychainError) -> T in
            // Checked again under the keybag's lock: the gate makes this hold, the check keeps it so.
            guard keybag.record.passcodeSalt == salt else {
                throw KeychainError(SecStatus.authFailed, "the passcode changed during this attempt")
            }
            if let refusal = lockout(keybag.record) { throw refusal }
            if case .lockedOut(let interval) = answer { throw try tpmLockout(interval, &keybag) }
            do throws(KeychainError) {
                // nil: the TPM refused the passcode's authorization (and counted it).
                guard let kek else { throw KeychainError(SecStatus.authFailed, "the TPM refused the passcode") }
                let result = try body(&keybag, kek)
                if keybag.record.failedAttempts > 0 || keybag.record.lockedOutUntil != nil {
                    try keybag.updateSettings {
                        $0.failedAttempts = 0; $0.lockedOutUntil = nil
                    }
                }
                return result
            } catch let error where error.status == SecStatus.authFailed {
                let failures = keybag.record.failedAttempts + 1
                let delay = delaysLockout(keybag.record) ? LockoutPolicy.delay(afterFailures: failures) : 0
                try keybag.updateSettings {
                    $0.failedAttempts = failures
                    $0.lockedOutUntil = delay > 0 ? now().addingTimeInterval(delay) : nil
                }
                let wait = delay > 0 ? "; unlocking is disabled for \(Int(delay)) s" : ""
                throw KeychainError(
                    SecStatus.authFailed,
                    "the passcode is not correct (\(failures) failed attempt\(failures == 1 ? "" : "s")\(wait))")
            }
        }
    }

    // MARK: Auto-lock

    /// Arms the auto-lock timer from now; any later unlock re-arms it (a generation number voids older timers).
    func scheduleAutoLock() {
        let generation = autoLockGeneration.withLock { g in
            g += 1; return g
        }
        guard let seconds = protection.withLock({ $0.record.autoLockSeconds }), deviceStatus().passcodeSet else {
            return
        }
        clock.schedule(after: TimeInterval(seconds)) { [weak self] in
            guard let self, self.autoLockGeneration.withLock({ $0 }) == generation else { return }
            self.lockDevice()
        }
    }
}
