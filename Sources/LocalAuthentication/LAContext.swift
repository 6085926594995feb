import Foundation
import Security

/// Authentication policies (Apple's raw values).
public enum LAPolicy: Int, Sendable {
    case deviceOwnerAuthenticationWithBiometrics = 1
    case deviceOwnerAuthentication = 2
    case deviceOwnerAuthenticationWithWatch = 3
    case deviceOwnerAuthenticationWithBiometricsOrWatch = 4
    case deviceOwnerAuthenticationWithWristDetection = 5
}

/// Biometry hardware: Linux has none.
public enum LABiometryType: Int, Sendable {
    case none = 0
    case touchID = 1
    case faceID = 2
    case opticID = 4
}

/// LocalAuthentication errors (Apple's codes).
public struct LAError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: Int, Sendable {
        case authenticationFailed = -1
        case userCancel = -2
        case userFallback = -3
        case systemCancel = -4
        case passcodeNotSet = -5
        case biometryNotAvailable = -6
        case biometryNotEnrolled = -7
        case biometryLockout = -8
        case appCancel = -9
        case invalidContext = -10
        case watchNotAvailable = -11
        case biometryNotPaired = -12
        case biometryDisconnected = -13
        case invalidDimensions = -14
        case notInteractive = -1004

        public static let touchIDNotAvailable = Code.biometryNotAvailable
        public static let touchIDNotEnrolled = Code.biometryNotEnrolled
        public static let touchIDLockout = Code.biometryLockout
    }

    public let code: Code
    public init(_ code: Code) { self.code = code }

    public static let authenticationFailed = Code.authenticationFailed
    public static let userCancel = Code.userCancel
    public static let biometryNotAvailable = Code.biometryNotAvailable
    public static let notInteractive = Code.notInteractive

    public var description: String { "LAError \(code) (\(code.rawValue))" }
}

/// Apple's authentication context. There is no authentication UI on Linux: policies cannot be
/// evaluated, and `interactionNotAllowed` makes keychain calls that pass this context (as
/// kSecUseAuthenticationContext) fail rather than prompt.
open class LAContext: NSObject, SecAuthenticationContextProviding, @unchecked Sendable {
    public var interactionNotAllowed = false
    public var localizedReason = ""
    public var localizedFallbackTitle: String?
    public var localizedCancelTitle: String?
    public var touchIDAuthenticationAllowableReuseDuration: TimeInterval = 0
    public var biometryType: LABiometryType { .none }

    public override init() { super.init() }

    /// Always false here, with the reason in `error` (no biometry; no passcode UI).
    open func canEvaluatePolicy(_ policy: LAPolicy, error: UnsafeMutablePointer<NSError?>?) -> Bool {
        let code: LAError.Code = interactionNotAllowed ? .notInteractive
            : policy == .deviceOwnerAuthentication ? .passcodeNotSet : .biometryNotAvailable
        error?.pointee = NSError(domain: "com.apple.LocalAuthentication", code: code.rawValue)
        return false
    }

    /// Replies at once with failure: Linux has no authentication UI.
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        reply(false, LAError(interactionNotAllowed ? .notInteractive : .biometryNotAvailable))
    }

    /// The async form.
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        throw LAError(interactionNotAllowed ? .notInteractive : .biometryNotAvailable)
    }

    open func invalidate() {}
}
