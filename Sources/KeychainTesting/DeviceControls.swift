import Foundation
import KeychainFSEngine
import KeychainFSModel

/// The test's controls: each is the engine's own device command (what `keychainfs device …` runs on a
/// daemon), in force when it returns.
extension SimulatedDevice {
    /// Locks the device (`device lock`): class A items become unavailable (errSecInteractionNotAllowed).
    /// Without a passcode it changes nothing, as on iOS.
    public func lock() { engine.lockDevice() }

    /// Unlocks with `passcode` (`device unlock`); a wrong one throws the engine's errSecAuthFailed and counts
    /// as a failed attempt: from the fifth, attempts are refused for a delay (1, 5, 15, then 60 minutes
    /// on the device's ``clock``). Without a passcode it does nothing.
    public func unlock(passcode: String) throws(KeychainError) {
        try engine.unlockDevice(passcode: Data(passcode.utf8))
    }

    /// Reboots (`device reboot`): back to before first unlock; class A and C items unavailable until an unlock.
    public func reboot() { engine.rebootDevice() }

    /// Sets the first passcode (`device passcode set`); the device is unlocked afterwards.
    public func setPasscode(_ passcode: String) throws(KeychainError) {
        try engine.setPasscode(Data(passcode.utf8))
        knownPasscode.withLock { $0 = passcode }
    }

    /// Changes the passcode (`device passcode change`); `old` must be the current one.
    public func changePasscode(from old: String, to new: String) throws(KeychainError) {
        try engine.changePasscode(old: Data(old.utf8), new: Data(new.utf8))
        knownPasscode.withLock { $0 = new }
    }

    /// Removes the passcode (`device passcode remove`; `current` must be it), deleting every
    /// WhenPasscodeSetThisDeviceOnly item as iOS does. Returns how many were deleted.
    @discardableResult
    public func removePasscode(_ current: String) throws(KeychainError) -> Int {
        defer { if !engine.deviceStatus().passcodeSet { knownPasscode.withLock { $0 = nil } } }
        return try engine.removePasscode(current: Data(current.utf8))
    }

    /// The delay after an unlock at which the device locks itself (`device auto-lock`), nil: never. Whole
    /// seconds, on the device's ``clock``.
    public var autoLock: Duration? {
        get { engine.deviceStatus().autoLockSeconds.map { .seconds($0) } }
    }

    /// Sets ``autoLock`` (a positive whole number of seconds, or nil for never).
    public func setAutoLock(_ delay: Duration?) throws(KeychainError) {
        try engine.setAutoLock(seconds: delay.map { Int($0.components.seconds) })
    }

    /// The device's state, as `keychainfs device status` shows it.
    public var status: DeviceStatus { engine.deviceStatus() }

    /// Whether the device is locked (or not yet unlocked since its last reboot); never without a passcode.
    public var isLocked: Bool { [.locked, .beforeFirstUnlock].contains(engine.deviceStatus().state) }

    /// The user looks at the locked device (`device unlock --biometry`): a match unlocks it if the passcode
    /// was entered since the last reboot, enrolment and biometry lockout, less than 48 hours ago on the
    /// device's ``clock``, and starts `touchIDAuthenticationAllowableReuseDuration`; a no-match counts
    /// toward the biometry lockout. Refusals throw errSecAuthFailed with the reason.
    public func unlockWithBiometry(match: Bool = true) throws(KeychainError) {
        try engine.unlockWithBiometry(match: match)
    }

    /// The device's time, which moves only when the test advances it.
    public var clock: Clock { Clock(clock: virtualClock) }

    /// The device's biometry (Face ID).
    public var biometry: Biometry { Biometry(engine: engine) }

    /// The device's authentication prompts.
    public var prompts: Prompts { Prompts(queue: engine.prompts) }
}
