import KeychainFSEngine
import KeychainFSModel

extension SimulatedDevice {
    /// How iOS starts the app, as its keychain sees it: each state puts the device where the keychain
    /// gives the errors the real device gives then.
    public enum LaunchState: Sendable, Equatable {
        /// Prewarming (iOS may launch an app after a reboot, before the user's first unlock):
        /// `AfterFirstUnlock` and `WhenUnlocked` items fail with errSecInteractionNotAllowed.
        case prewarm
        /// A background wake (silent push, background fetch, a `BGTask`) while the device is locked after
        /// its first unlock: `AfterFirstUnlock` items open, `WhenUnlocked` and `WhenPasscodeSet` items fail
        /// with errSecInteractionNotAllowed.
        case backgroundWhileLocked
        /// The user opens the app: the device is unlocked, everything opens.
        case foreground
    }

    /// Puts the device in `state` for the app's next calls: `.prewarm` reboots it, `.backgroundWhileLocked`
    /// unlocks it once with its passcode if it was never unlocked since boot, then locks it, `.foreground`
    /// unlocks it. The passcode is the one the device was given through the kit. Without a passcode every
    /// state is unlocked, as on iOS. Throws what the unlock throws (a passcode lockout, for one).
    public func launch(_ state: LaunchState) throws(KeychainError) {
        guard let passcode = knownPasscode.withLock({ $0 }) else { return }
        switch state {
        case .prewarm:
            reboot()
        case .backgroundWhileLocked:
            if engine.deviceStatus().state == .beforeFirstUnlock { try unlock(passcode: passcode) }
            lock()
        case .foreground:
            if isLocked { try unlock(passcode: passcode) }
        }
    }
}
