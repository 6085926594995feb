import KeychainFSControlChannel
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// Authentication policies (Apple's raw values).
public enum LAPolicy: Int, Sendable {
    case deviceOwnerAuthenticationWithBiometrics = 1
    case deviceOwnerAuthentication = 2
    case deviceOwnerAuthenticationWithWatch = 3
    case deviceOwnerAuthenticationWithBiometricsOrWatch = 4
    case deviceOwnerAuthenticationWithWristDetection = 5
}

/// Biometry hardware: the simulator's is Face ID once enrolled.
public enum LABiometryType: Int, Sendable {
    case none = 0
    case touchID = 1
    case faceID = 2
    case opticID = 4
}

/// Credential types for `setCredential(_:type:)`.
public enum LACredentialType: Int, Sendable {
    case applicationPassword = 0
}

/// The enrolled set's state, as iOS 18's `LAContext.domainState` reports it.
public struct LADomainState: Sendable {
    /// The biometry part of the state.
    public struct Biometry: Sendable {
        public let biometryType: LABiometryType
        /// Changes whenever the enrolled set changes; nil when nothing is enrolled.
        public let stateHash: Data?
    }
    public let biometry: Biometry
    /// The whole state's hash.
    public var stateHash: Data? { biometry.stateHash }
}

/// Apple's authentication context, evaluated against the keychainfs authentication simulator of the
/// vault this process uses (its daemon, or the in-process engine; a test's bound device first): prompts are answered with
/// `keychainfs device prompt …` (docs/spec.md §11). A context that evaluated successfully, passed as
/// kSecUseAuthenticationContext, is not prompted again until `invalidate()`.
open class LAContext: NSObject, SecAuthenticationContextProviding, @unchecked Sendable {
    public var interactionNotAllowed = false
    public var localizedReason = ""
    public var localizedFallbackTitle: String?
    public var localizedCancelTitle: String?
    /// No prompt when the device was unlocked with biometry within this many seconds (Apple's maximum: 300).
    public var touchIDAuthenticationAllowableReuseDuration: TimeInterval = 0

    private let lock = NSLock()
    private var token: Data?
    private var invalidated = false
    private var credential: Data?
    private var lastDomainState: Data?
    private var lastEnrolled = false

    public override init() { super.init() }

    /// `.faceID` once biometry is enrolled (as of the last `canEvaluatePolicy` or evaluation).
    public var biometryType: LABiometryType { lock.withLock { lastEnrolled } ? .faceID : .none }

    /// The enrolled set's state after the last successful biometric `canEvaluatePolicy`/evaluation.
    public var evaluatedPolicyDomainState: Data? { lock.withLock { lastDomainState } }

    /// The current enrolled set's state.
    public var domainState: LADomainState {
        _ = try? send(CanEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics))
        return lock.withLock {
            LADomainState(biometry: .init(biometryType: lastEnrolled ? .faceID : .none, stateHash: lastDomainState))
        }
    }

    /// Whether `policy` can be evaluated now (passcode set? biometry enrolled? locked out?), and why not.
    open func canEvaluatePolicy(_ policy: LAPolicy, error: UnsafeMutablePointer<NSError?>?) -> Bool {
        let failure: LAError?
        do { failure = try send(CanEvaluatePolicy(try Self.engine(policy))).failure } catch {
            failure = LAError(.biometryNotAvailable)
        }
        if let failure { error?.pointee = failure.nsError; return false }
        return true
    }

    /// Raises a prompt (unless this context or a recent biometric unlock covers it) and replies with its answer.
    open func evaluatePolicy(
        _ policy: LAPolicy, localizedReason: String, reply: @escaping @Sendable (Bool, (any Error)?) -> Void
    ) {
        // The thread loses task-locals: it evaluates on the device bound where the call was made.
        let binding = KeychainBinding.current
        Thread.detachNewThread { [self] in
            KeychainBinding.$task.withValue(binding) {
                do {
                    try evaluate(policy, localizedReason)
                    reply(true, nil)
                } catch {
                    reply(false, error)
                }
            }
        }
    }

    /// The async form.
    open func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
            evaluatePolicy(policy, localizedReason: localizedReason) { ok, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: ok) }
            }
        }
    }

    /// Ends this context: its evaluation no longer counts, and it cannot evaluate again (invalidContext).
    open func invalidate() {
        let old = lock.withLock { () -> Data? in
            invalidated = true; defer { token = nil }; return token
        }
        if let old { _ = try? connection().perform(InvalidateEvaluation(token: old)) }
    }

    /// Sets the application password for items made with `.applicationPassword`.
    @discardableResult
    open func setCredential(_ credential: Data?, type: LACredentialType) -> Bool {
        lock.withLock { self.credential = credential }
        return true
    }

    /// Whether a credential of `type` is set.
    open func isCredentialSet(_ type: LACredentialType) -> Bool { lock.withLock { credential != nil } }

    /// What kSecUseAuthenticationContext carries to the engine: the evaluation, reuse duration, credential.
    public var authenticationContext: KeychainDictionary {
        lock.withLock {
            var d: KeychainDictionary = [
                AuthenticationOptions.ContextKey.interactionNotAllowed: .bool(interactionNotAllowed),
                AuthenticationOptions.ContextKey.reuseDuration: .number(
                    Int64(touchIDAuthenticationAllowableReuseDuration)),
            ]
            if let token { d[AuthenticationOptions.ContextKey.token] = .data(token) }
            if let credential { d[AuthenticationOptions.ContextKey.credential] = .data(credential) }
            return d
        }
    }

    private func evaluate(_ policy: LAPolicy, _ reason: String) throws {
        if lock.withLock({ invalidated }) { throw LAError(.invalidContext) }
        let call = EvaluatePolicy(
            try Self.engine(policy), reason: reason, interactionNotAllowed: interactionNotAllowed,
            token: lock.withLock { token }, reuseDuration: Int64(touchIDAuthenticationAllowableReuseDuration))
        let answer: Answer
        do { answer = try send(call) } catch { throw LAError(.systemCancel) }
        if let failure = answer.failure { throw failure }
        lock.withLock { token = answer.token }
    }

    private struct Answer {
        var failure: LAError?
        var token: Data?
    }

    /// The engine's policy of `policy` (the same raw values as Apple's).
    private static func engine(_ policy: LAPolicy) throws(KeychainError) -> AuthenticationPolicy {
        guard let policy = AuthenticationPolicy(rawValue: policy.rawValue) else {
            throw KeychainError(SecStatus.param, "unknown LAPolicy")
        }
        return policy
    }

    /// The device bound to this task (the test kit), else the unbound route (``UnboundCalls``).
    private func connection() throws(KeychainError) -> KeychainConnection {
        if let bound = KeychainBinding.current { return bound.connection }
        return try UnboundCalls.connection()
    }

    private func send<Call: EvaluationReplyCall>(_ call: Call) throws(KeychainError) -> Answer {
        let evaluation = try connection().perform(call)
        lock.withLock {
            lastEnrolled = evaluation.biometryEnrolled
            lastDomainState = evaluation.domainState
        }
        let failure = evaluation.failure.map {
            LAError(number: $0.laError ?? Int(LAErrorNumber.authenticationFailed))
        }
        return Answer(failure: failure, token: evaluation.token)
    }
}
