import Foundation
import KeychainFSEngine
import KeychainFSModel

/// LocalAuthentication's error domain.
public let LAErrorDomain = "com.apple.LocalAuthentication"

/// LocalAuthentication errors with Apple's codes (LAError.h), so `catch let e as LAError`,
/// `(error as? LAError)?.code == .biometryLockout` and the NSError's domain and code work as on Apple.
public struct LAError: Error, Equatable, Hashable, Sendable, CustomStringConvertible, CustomNSError {
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
        case companionNotAvailable = -11
        case biometryNotPaired = -12
        case biometryDisconnected = -13
        case invalidDimensions = -14
        case notInteractive = -1004

        public static let touchIDNotAvailable = Code.biometryNotAvailable
        public static let touchIDNotEnrolled = Code.biometryNotEnrolled
        public static let touchIDLockout = Code.biometryLockout
        public static let watchNotAvailable = Code.companionNotAvailable
    }

    public let code: Code
    public init(_ code: Code) { self.code = code }

    public static let authenticationFailed = Code.authenticationFailed
    public static let userCancel = Code.userCancel
    public static let userFallback = Code.userFallback
    public static let systemCancel = Code.systemCancel
    public static let passcodeNotSet = Code.passcodeNotSet
    public static let biometryNotAvailable = Code.biometryNotAvailable
    public static let biometryNotEnrolled = Code.biometryNotEnrolled
    public static let biometryLockout = Code.biometryLockout
    public static let appCancel = Code.appCancel
    public static let invalidContext = Code.invalidContext
    public static let companionNotAvailable = Code.companionNotAvailable
    public static let watchNotAvailable = Code.companionNotAvailable
    public static let biometryNotPaired = Code.biometryNotPaired
    public static let biometryDisconnected = Code.biometryDisconnected
    public static let invalidDimensions = Code.invalidDimensions
    public static let notInteractive = Code.notInteractive
    public static let touchIDNotAvailable = Code.biometryNotAvailable
    public static let touchIDNotEnrolled = Code.biometryNotEnrolled
    public static let touchIDLockout = Code.biometryLockout

    public static var errorDomain: String { LAErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var description: String { "LAError \(code) (\(code.rawValue))" }

    /// The NSError Apple hands back from canEvaluatePolicy.
    public var nsError: NSError { NSError(domain: LAErrorDomain, code: code.rawValue) }

    /// The engine's LAError number, as this type (authenticationFailed for a number Apple lacks).
    init(number: Int) { self.init(Code(rawValue: number) ?? .authenticationFailed) }
}
