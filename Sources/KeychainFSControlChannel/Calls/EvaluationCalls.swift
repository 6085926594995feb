import Foundation
import KeychainFSEngine
import KeychainFSModel
import Synchronization

// LAContext's calls: can a policy be evaluated, evaluate it (raising a prompt unless the context or a recent
// biometric unlock covers it), and end a context's evaluation.

/// `LAContext.canEvaluatePolicy`: whether the policy can be evaluated now, and why not.
package struct CanEvaluatePolicy: EvaluationReplyCall {
    package static let command = ControlCommand.laCanEvaluate
    package let policy: AuthenticationPolicy
    package init(_ policy: AuthenticationPolicy) { self.policy = policy }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        policy = try Self.policy(arguments)
    }
    package var arguments: KeychainDictionary { ["policy": .number(Int64(policy.rawValue))] }
    package func perform(on keychain: Keychain, caller: Caller) -> Evaluation {
        Evaluation(failure: keychain.canEvaluate(policy), token: nil, keychain: keychain)
    }
}

/// `LAContext.evaluatePolicy`: waits for the prompt's answer (bounded by the prompt timeout).
package struct EvaluatePolicy: EvaluationReplyCall {
    package static let command = ControlCommand.laEvaluate
    package let policy: AuthenticationPolicy
    package let reason: String
    package let interactionNotAllowed: Bool
    /// The context's earlier evaluation, if any.
    package let token: Data?
    /// `touchIDAuthenticationAllowableReuseDuration`, seconds.
    package let reuseDuration: Int64

    package init(
        _ policy: AuthenticationPolicy, reason: String, interactionNotAllowed: Bool, token: Data?, reuseDuration: Int64
    ) {
        self.policy = policy
        self.reason = reason
        self.interactionNotAllowed = interactionNotAllowed
        self.token = token
        self.reuseDuration = reuseDuration
    }

    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        policy = try Self.policy(arguments)
        reason = arguments.values["reason"]?.stringValue ?? ""
        interactionNotAllowed = try arguments.flag("interactionNotAllowed")
        token = arguments.values["token"]?.dataValue
        reuseDuration = arguments.values["reuseDuration"]?.numberValue ?? 0
    }

    package var arguments: KeychainDictionary {
        var d: KeychainDictionary = [
            "policy": .number(Int64(policy.rawValue)), "reason": .string(reason),
            "interactionNotAllowed": .bool(interactionNotAllowed), "reuseDuration": .number(reuseDuration),
        ]
        if let token { d["token"] = .data(token) }
        return d
    }

    package func perform(on keychain: Keychain, caller: Caller) -> Evaluation {
        let options = AuthenticationOptions(
            ui: interactionNotAllowed ? .fail : .allow, reason: reason, contextToken: token,
            biometricReuse: TimeInterval(reuseDuration))
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Data, AuthenticationFailure>?>(nil)
        let handle = keychain.evaluatePolicy(policy, options: options, caller: caller) { r in
            result.withLock { $0 = r }
            done.signal()
        }
        // The prompt's own timeout ends it; this bound only keeps a stuck evaluation from holding the call.
        if done.wait(timeout: .now() + keychain.prompts.timeout * 3 + 10) == .timedOut {
            handle.cancel()
            _ = done.wait(timeout: .now() + 5)
        }
        switch result.withLock({ $0 }) {
        case .success(let token)?: return Evaluation(failure: nil, token: token, keychain: keychain)
        case .failure(let failure)?: return Evaluation(failure: failure, token: nil, keychain: keychain)
        case nil:
            let failure = AuthenticationFailure(
                SecStatus.userCanceled, LAErrorNumber.systemCancel, "the evaluation did not finish")
            return Evaluation(failure: failure, token: nil, keychain: keychain)
        }
    }
}

/// `LAContext.invalidate`: the context's evaluation no longer counts.
package struct InvalidateEvaluation: EngineCall, EmptyReplyCall {
    package static let command = ControlCommand.laInvalidate
    package let token: Data
    package init(token: Data) { self.token = token }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        token = try arguments.data("token")
    }
    package var arguments: KeychainDictionary { ["token": .data(token)] }
    package func perform(on keychain: Keychain, caller: Caller) { keychain.invalidateEvaluation(token) }
}

/// An evaluation's answer: success with its token, or the failure (OSStatus, LAError number, why), and the
/// biometry type and domain state as LAContext reports them.
package struct Evaluation: Sendable, Equatable {
    package var failure: AuthenticationFailure?
    package var token: Data?
    package var biometryEnrolled: Bool
    package var domainState: Data?

    init(failure: AuthenticationFailure?, token: Data?, keychain: Keychain) {
        let biometry = keychain.biometryStatus()
        self.failure = failure
        self.token = token
        biometryEnrolled = biometry.enrolled
        domainState = biometry.domainState
    }

    var encoded: KeychainValue {
        var d: KeychainDictionary = ["success": .bool(failure == nil), "biometryEnrolled": .bool(biometryEnrolled)]
        if let domainState { d["domainState"] = .data(domainState) }
        if let token { d["token"] = .data(token) }
        if let failure {
            d["status"] = .number(Int64(failure.status))
            d["laError"] = .number(Int64(failure.laError ?? LAErrorNumber.authenticationFailed))
            d["message"] = .string(failure.message)
        }
        return .dictionary(d)
    }

    init(decoding value: KeychainValue?) throws(KeychainError) {
        guard let d = value?.dictionaryValue, case .bool(let success)? = d["success"] else {
            throw KeychainError(SecStatus.decode, "malformed evaluation from the daemon")
        }
        biometryEnrolled = d["biometryEnrolled"] == .bool(true)
        domainState = d["domainState"]?.dataValue
        token = d["token"]?.dataValue
        failure =
            success
            ? nil
            : AuthenticationFailure(
                Int32(truncatingIfNeeded: d["status"]?.numberValue ?? Int64(SecStatus.authFailed)),
                Int(d["laError"]?.numberValue ?? Int64(LAErrorNumber.authenticationFailed)),
                d["message"]?.stringValue ?? "")
    }
}

/// A call answered by an ``Evaluation``.
package protocol EvaluationReplyCall: EngineCall where Reply == Evaluation {}
extension EvaluationReplyCall {
    package static func encode(_ reply: Evaluation) -> KeychainValue? { reply.encoded }
    package static func decode(_ value: KeychainValue?) throws(KeychainError) -> Evaluation {
        try Evaluation(decoding: value)
    }

    static func policy(_ arguments: CallArguments) throws(KeychainError) -> AuthenticationPolicy {
        guard let raw = arguments.values["policy"]?.numberValue, let policy = AuthenticationPolicy(rawValue: Int(raw))
        else { throw KeychainError(SecStatus.param, "unknown LAPolicy") }
        return policy
    }
}
