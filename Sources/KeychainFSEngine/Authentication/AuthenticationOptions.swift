import KeychainFSModel
import KeychainFSStore
import Foundation

/// LocalAuthentication's error numbers (LAError.h), which the engine reports next to an OSStatus so an
/// LAContext can throw the LAError Apple would.
public enum LAErrorNumber {
    public static let authenticationFailed = -1
    public static let userCancel = -2
    public static let userFallback = -3
    public static let systemCancel = -4
    public static let passcodeNotSet = -5
    public static let biometryNotAvailable = -6
    public static let biometryNotEnrolled = -7
    public static let biometryLockout = -8
    public static let appCancel = -9
    public static let invalidContext = -10
    public static let watchNotAvailable = -11
    public static let notInteractive = -1004
}

/// A refused authentication: the keychain's OSStatus and, where Apple has one, the LAError number.
public struct AuthenticationFailure: Error, Sendable, Equatable {
    public var status: OSStatus
    public var laError: Int?
    public var message: String

    public init(_ status: OSStatus, _ laError: Int?, _ message: String) {
        self.status = status
        self.laError = laError
        self.message = message
    }

    public var keychainError: KeychainError { KeychainError(status, message) }

    static let canceled = AuthenticationFailure(
        SecStatus.userCanceled, LAErrorNumber.userCancel, "the user canceled the authentication")
    static let notInteractive = AuthenticationFailure(
        SecStatus.interactionNotAllowed, LAErrorNumber.notInteractive,
        "the item needs user authentication and UI is not allowed")
}

/// How a caller lets authentication happen: kSecUseAuthenticationUI, kSecUseOperationPrompt and
/// kSecUseAuthenticationContext (an LAContext's evaluation, its reuse duration, its credential).
public struct AuthenticationOptions: Sendable, Equatable {
    public enum UI: Sendable, Equatable { case allow, fail, skip }
    public var ui: UI
    public var reason: String
    /// The evaluation an LAContext got from ``Keychain/evaluatePolicy(_:options:caller:completion:)``.
    public var contextToken: Data?
    /// LAContext.touchIDAuthenticationAllowableReuseDuration.
    public var biometricReuse: TimeInterval
    /// LAContext.setCredential(_:type: .applicationPassword).
    public var applicationPassword: Data?

    public init(
        ui: UI = .allow, reason: String = "", contextToken: Data? = nil, biometricReuse: TimeInterval = 0,
        applicationPassword: Data? = nil
    ) {
        self.ui = ui
        self.reason = reason
        self.contextToken = contextToken
        self.biometricReuse = biometricReuse
        self.applicationPassword = applicationPassword
    }

    /// The keys of `u_AuthCtx`, a dictionary the Security module makes of an LAContext.
    public enum ContextKey {
        public static let token = "token"
        public static let reuseDuration = "reuseDuration"
        public static let credential = "credential"
        public static let interactionNotAllowed = "interactionNotAllowed"
    }

    /// The options a query's `u_…` keys give.
    init(useKeys: [String: KeychainValue], authenticationUI: String?) {
        let context = useKeys[QueryKey.useAuthenticationContext]?.dictionaryValue ?? [:]
        let notInteractive = context[ContextKey.interactionNotAllowed] == .bool(true)
        self.init(
            ui: notInteractive || authenticationUI == QueryKey.useAuthenticationUIFail
                ? .fail
                : authenticationUI == QueryKey.useAuthenticationUISkip ? .skip : .allow,
            reason: useKeys[QueryKey.useOperationPrompt]?.stringValue ?? "",
            contextToken: context[ContextKey.token]?.dataValue,
            biometricReuse: TimeInterval(context[ContextKey.reuseDuration]?.numberValue ?? 0),
            applicationPassword: context[ContextKey.credential]?.dataValue
                ?? useKeys[QueryKey.useCredentialReference]?.dataValue)
    }

    /// The query keys that carry these options' UI mode and open-file token into an engine call: the
    /// inverse of ``init(useKeys:authenticationUI:)`` for what a face that never prompts passes.
    var queryKeys: KeychainDictionary {
        var keys: KeychainDictionary = [:]
        if ui == .fail { keys[QueryKey.useAuthenticationUI] = .string(QueryKey.useAuthenticationUIFail) }
        if let contextToken {
            keys[QueryKey.useAuthenticationContext] = .dictionary([ContextKey.token: .data(contextToken)])
        }
        return keys
    }
}
