import KeychainFSModel
import Foundation

/// The simulated device's lock state (docs/spec.md §3).
public enum DeviceState: String, Sendable, Codable {
    /// No passcode: every class but akpu is always available.
    case noPasscode = "no-passcode"
    /// Booted with a passcode and not unlocked since: only class D.
    case beforeFirstUnlock = "before-first-unlock"
    /// Unlocked: everything.
    case unlocked
    /// Locked after a first unlock: classes C and D.
    case locked

    /// Whether items of `accessibility` can be used in this state (docs/spec.md §3's table).
    public func allows(_ accessibility: Accessibility) -> Bool {
        switch (accessibility.tier, self) {
        case (.d, _): true
        case (_, .noPasscode): accessibility != .whenPasscodeSetThisDeviceOnly
        case (.c, .unlocked), (.c, .locked): true
        case (.a, .unlocked): true
        default: false
        }
    }
}

/// iOS's escalating delays after wrong passcodes: none for the first four failures, then 1, 5, 15 and 60 minutes.
public enum LockoutPolicy {
    public static func delay(afterFailures failures: Int) -> TimeInterval {
        switch failures {
        case ..<5: 0
        case 5: 60
        case 6: 5 * 60
        case 7: 15 * 60
        default: 60 * 60
        }
    }
}
