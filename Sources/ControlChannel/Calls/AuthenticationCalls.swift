import Foundation
import KeychainEngine
import KeychainModel

// The authentication simulator's commands (docs/spec.md §11, docs/face-id.md): biometry, prompt answers and
// settings, and LAContext's evaluations. Passcodes travel as data and are never echoed.

/// `device biometry enroll`: a face (again: `.biometryCurrentSet` items made before become unusable).
public struct BiometryEnroll: BiometryReplyCall {
    public static let command = ControlCommand.biometryEnroll
    public init() {}
    public init(_ arguments: CallArguments, attachment: Data?) {}
    public func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) -> BiometryReport {
        try keychain.enrollBiometry()
        return BiometryReport(keychain)
    }
}

/// `device biometry unenroll`.
public struct BiometryUnenroll: BiometryReplyCall {
    public static let command = ControlCommand.biometryUnenroll
    public init() {}
    public init(_ arguments: CallArguments, attachment: Data?) {}
    public func perform(on keychain: Keychain, caller: Caller) -> BiometryReport {
        keychain.unenrollBiometry()
        return BiometryReport(keychain)
    }
}

/// `device biometry status`.
public struct BiometryStatusCall: BiometryReplyCall {
    public static let command = ControlCommand.biometryStatus
    public init() {}
    public init(_ arguments: CallArguments, attachment: Data?) {}
    public func perform(on keychain: Keychain, caller: Caller) -> BiometryReport { BiometryReport(keychain) }
}

/// `device unlock --biometry [--no-match]`: a face at the lock screen.
public struct UnlockWithBiometry: BiometryReplyCall {
    public static let command = ControlCommand.unlockBiometry
    public let match: Bool
    public init(match: Bool) { self.match = match }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        match = arguments.values["match"] == nil ? true : try arguments.flag("match")
    }
    public var arguments: KeychainDictionary { ["match": .bool(match)] }
    public func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) -> BiometryReport {
        try keychain.unlockWithBiometry(match: match)
        return BiometryReport(keychain)
    }
}

/// `device prompt match|no-match|cancel|accept|passcode [--next]`: answers the oldest pending prompt, or
/// the next one raised; replies the prompt answered (nil when the answer was queued for the next one).
public struct PromptAnswerCall: EngineCall {
    public static let command = ControlCommand.promptAnswer
    public let answer: PromptAnswer
    public let next: Bool
    public init(_ answer: PromptAnswer, next: Bool) {
        self.answer = answer
        self.next = next
    }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        switch arguments.values["answer"]?.stringValue {
        case "match": answer = .match
        case "no-match": answer = .noMatch
        case "cancel": answer = .cancel
        case "accept": answer = .accept
        case "passcode": answer = .passcode(try arguments.data("passcode"))
        default:
            throw KeychainError(SecStatus.param, "the answer must be match, no-match, cancel, accept or passcode")
        }
        next = try arguments.flag("next")
    }
    public var arguments: KeychainDictionary {
        var d: KeychainDictionary = ["next": .bool(next)]  // not a schema code
        switch answer {
        case .match: d["answer"] = .string("match")
        case .noMatch: d["answer"] = .string("no-match")
        case .cancel: d["answer"] = .string("cancel")
        case .accept: d["answer"] = .string("accept")
        case .timeout: d["answer"] = .string("timeout")  // nobody sends it: the daemon refuses it
        case .passcode(let passcode):
            d["answer"] = .string("passcode")
            d["passcode"] = .data(passcode)
        }
        return d
    }
    public func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) -> PromptInfo? {
        try keychain.prompts.answer(answer, next: next)
    }
    public static func encode(_ reply: PromptInfo?) -> KeychainValue? { reply?.encoded }
    public static func decode(_ value: KeychainValue?) throws(KeychainError) -> PromptInfo? {
        try value.map { value throws(KeychainError) in try PromptInfo(decoding: value) }
    }
}

/// `device prompt auto MODE`: what answers prompts nobody answers by hand.
public struct PromptAutoCall: EngineCall, EmptyReplyCall {
    public static let command = ControlCommand.promptAuto
    public let mode: PromptAutoMode
    public init(_ mode: PromptAutoMode) { self.mode = mode }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        guard let name = arguments.values["mode"]?.stringValue, let mode = PromptAutoMode(rawValue: name) else {
            throw KeychainError(
                SecStatus.param,
                "auto mode must be one of \(PromptAutoMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.mode = mode
    }
    public var arguments: KeychainDictionary { ["mode": .string(mode.rawValue)] }
    public func perform(on keychain: Keychain, caller: Caller) { keychain.prompts.autoMode = mode }
}

/// `device prompt timeout SECONDS`: how long an unanswered prompt waits before it ends as a user cancel.
public struct PromptTimeoutCall: EngineCall, EmptyReplyCall {
    public static let command = ControlCommand.promptTimeout
    public static let allowed: ClosedRange<Int64> = 1...86_400
    public let seconds: Int64
    public init(seconds: Int64) { self.seconds = seconds }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        guard let seconds = arguments.values["seconds"]?.numberValue else {
            throw KeychainError(SecStatus.param, "missing 'seconds'")
        }
        self.seconds = seconds
    }
    public var arguments: KeychainDictionary { ["seconds": .number(seconds)] }
    public func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) {
        guard Self.allowed.contains(seconds) else {
            throw KeychainError(SecStatus.param, "the prompt timeout must be 1 to 86400 seconds")
        }
        keychain.prompts.timeout = TimeInterval(seconds)
    }
}

/// `device prompts`: the pending prompts, oldest first.
public struct PendingPrompts: EngineCall {
    public static let command = ControlCommand.prompts
    public init() {}
    public init(_ arguments: CallArguments, attachment: Data?) {}
    public func perform(on keychain: Keychain, caller: Caller) -> [PromptInfo] { keychain.prompts.pending }
    public static func encode(_ reply: [PromptInfo]) -> KeychainValue? { .array(reply.map(\.encoded)) }
    public static func decode(_ value: KeychainValue?) throws(KeychainError) -> [PromptInfo] {
        var prompts: [PromptInfo] = []
        for item in value?.arrayValue ?? [] { prompts.append(try PromptInfo(decoding: item)) }
        return prompts
    }
}
