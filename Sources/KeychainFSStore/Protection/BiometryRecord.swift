import KeychainFSModel
import Foundation
import KeychainFSSodium

/// The simulated device's biometry (docs/spec.md §11), kept in the keybag file with the device state.
public struct BiometryRecord: Codable, Sendable, Equatable {
    /// Apple locks biometry out after this many failed matches in a row, until a passcode succeeds.
    public static let lockoutFailures = 5

    public var enrolled = false
    /// Changes on every enrolment (LAContext.evaluatedPolicyDomainState); nil when never enrolled.
    public var domainState: Data?
    /// When the current enrolment was made: items bound to `.biometryCurrentSet` made before it are invalid.
    public var enrolledAt: Date?
    /// Failed matches since the last success or passcode.
    public var failures = 0
    /// The last `device unlock --biometry` (touchIDAuthenticationAllowableReuseDuration).
    public var lastBiometricUnlock: Date?

    public init() {}

    public var lockedOut: Bool { failures >= Self.lockoutFailures }

    package mutating func enroll(at date: Date) {
        enrolled = true
        domainState = Sodium.randomBytes(32)
        enrolledAt = date
        failures = 0
    }

    package mutating func unenroll() {
        enrolled = false
        domainState = nil
        enrolledAt = nil
        failures = 0
        lastBiometricUnlock = nil
    }
}
