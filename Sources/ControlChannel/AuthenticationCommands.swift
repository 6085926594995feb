import Foundation
import KeychainEngine
import KeychainModel
import Synchronization

/// The authentication simulator's control commands (docs/spec.md §11): biometry, prompt answers, and the
/// evaluations of LAContexts in client processes. The daemon answers them on its socket; a client with
/// no daemon runs them on its in-process engine. Passcodes arrive as data and are never echoed.
public struct AuthenticationCommands: Sendable {
    let keychain: Keychain

    public init(keychain: Keychain) { self.keychain = keychain }

    /// Whether `command` is one of these.
    public static func handles(_ command: ControlCommand) -> Bool {
        [
            .biometryEnroll, .biometryUnenroll, .biometryStatus, .unlockBiometry, .promptAnswer, .promptAuto,
            .promptTimeout, .prompts,
            .laCanEvaluate, .laEvaluate, .laInvalidate,
        ].contains(command)
    }

    /// Runs `command` with `args` for `caller`.
    public func perform(_ command: ControlCommand, _ args: KeychainDictionary, caller: Caller) throws(KeychainError)
        -> KeychainValue?
    {
        switch command {
        case .biometryEnroll: try keychain.enrollBiometry()
        case .biometryUnenroll: keychain.unenrollBiometry()
        case .unlockBiometry: try keychain.unlockWithBiometry(match: args["match"] != .bool(false))
        case .biometryStatus: break
        case .promptAnswer: return try answer(args)
        case .promptAuto:
            guard let name = args["mode"]?.stringValue, let mode = PromptAutoMode(rawValue: name) else {
                throw KeychainError(
                    SecStatus.param,
                    "auto mode must be one of \(PromptAutoMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            keychain.prompts.autoMode = mode
            return nil
        case .promptTimeout:
            guard let seconds = args["seconds"]?.numberValue, seconds > 0, seconds <= 86_400 else {
                throw KeychainError(SecStatus.param, "the prompt timeout must be 1 to 86400 seconds")
            }
            keychain.prompts.timeout = TimeInterval(seconds)
            return nil
        case .prompts: return .array(keychain.prompts.pending.map(Self.encode))
        case .laCanEvaluate:
            let failure = keychain.canEvaluate(try policy(args))
            return Self.evaluation(failure: failure, token: nil, keychain: keychain)
        case .laEvaluate: return try evaluate(args, caller: caller)
        case .laInvalidate:
            if let token = args["token"]?.dataValue { keychain.invalidateEvaluation(token) }
            return nil
        default: throw KeychainError(SecStatus.unimplemented, "not an authentication command")
        }
        return biometryStatus()
    }

    private func answer(_ args: KeychainDictionary) throws(KeychainError) -> KeychainValue? {
        let answer: PromptAnswer
        switch args["answer"]?.stringValue {
        case "match": answer = .match
        case "no-match": answer = .noMatch
        case "cancel": answer = .cancel
        case "accept": answer = .accept
        case "passcode":
            guard let passcode = args["passcode"]?.dataValue else {
                throw KeychainError(SecStatus.param, "missing 'passcode'")
            }
            answer = .passcode(passcode)
        default: throw KeychainError(SecStatus.param, "the answer must be match, no-match, cancel, accept or passcode")
        }
        let answered = try keychain.prompts.answer(answer, next: args["next"] == .bool(true))  // not a schema code
        return answered.map(Self.encode)
    }

    private func evaluate(_ args: KeychainDictionary, caller: Caller) throws(KeychainError) -> KeychainValue? {
        let options = AuthenticationOptions(
            ui: args["interactionNotAllowed"] == .bool(true) ? .fail : .allow,
            reason: args["reason"]?.stringValue ?? "",
            contextToken: args["token"]?.dataValue,
            biometricReuse: TimeInterval(args["reuseDuration"]?.numberValue ?? 0))
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Data, AuthenticationFailure>?>(nil)
        let handle = keychain.evaluatePolicy(try policy(args), options: options, caller: caller) { r in
            result.withLock { $0 = r }
            done.signal()
        }
        if done.wait(timeout: .now() + keychain.prompts.timeout * 3 + 10) == .timedOut {
            handle.cancel(); _ = done.wait(timeout: .now() + 5)
        }
        switch result.withLock({ $0 }) {
        case .success(let token)?: return Self.evaluation(failure: nil, token: token, keychain: keychain)
        case .failure(let failure)?: return Self.evaluation(failure: failure, token: nil, keychain: keychain)
        case nil:
            return Self.evaluation(
                failure: AuthenticationFailure(
                    SecStatus.userCanceled, LAErrorNumber.systemCancel, "the evaluation did not finish"), token: nil,
                keychain: keychain)
        }
    }

    private func policy(_ args: KeychainDictionary) throws(KeychainError) -> AuthenticationPolicy {
        guard let raw = args["policy"]?.numberValue, let policy = AuthenticationPolicy(rawValue: Int(raw)) else {
            throw KeychainError(SecStatus.param, "unknown LAPolicy")
        }
        return policy
    }

    /// An evaluation's answer: success, or the LAError number with the OSStatus and why; the biometry
    /// type and domain state as LAContext reports them.
    static func evaluation(failure: AuthenticationFailure?, token: Data?, keychain: Keychain) -> KeychainValue {
        let biometry = keychain.biometryStatus()
        var d: KeychainDictionary = ["success": .bool(failure == nil), "biometryEnrolled": .bool(biometry.enrolled)]
        if let domain = biometry.domainState { d["domainState"] = .data(domain) }
        if let token { d["token"] = .data(token) }
        if let failure {
            d["status"] = .number(Int64(failure.status))
            d["laError"] = .number(Int64(failure.laError ?? LAErrorNumber.authenticationFailed))
            d["message"] = .string(failure.message)
        }
        return .dictionary(d)
    }

    private func biometryStatus() -> KeychainValue {
        let b = keychain.biometryStatus()
        var d: KeychainDictionary = [
            "enrolled": .bool(b.enrolled), "lockedOut": .bool(b.lockedOut), "failures": .number(Int64(b.failures)),
            "autoAnswer": .string(keychain.prompts.autoMode.rawValue),
            "promptTimeout": .number(Int64(keychain.prompts.timeout)),
            "promptsRaised": .number(Int64(keychain.prompts.raisedCount)),
        ]
        if let domain = b.domainState { d["domainState"] = .data(domain) }
        if let last = b.lastBiometricUnlock { d["lastBiometricUnlock"] = .date(last) }
        return .dictionary(d)
    }

    static func encode(_ p: PromptInfo) -> KeychainValue {
        var d: KeychainDictionary = [
            "id": .number(Int64(p.id)), "kind": .string(p.kind.rawValue), "reason": .string(p.reason),
            "raised": .date(p.raised),
        ]
        if let pid = p.pid { d["pid"] = .number(Int64(pid)) }
        if let executable = p.executable { d["executable"] = .string(executable) }
        if let item = p.item { d["item"] = .string(item) }
        return .dictionary(d)
    }
}
