import Foundation
import KeychainFSEngine
import KeychainFSModel

// The authentication simulator's commands (docs/spec.md §11, docs/face-id.md): biometry, prompt answers and
// settings, and LAContext's evaluations. Passcodes travel as data and are never echoed.

/// `device biometry enroll`: a face (again: `.biometryCurrentSet` items made before become unusable).
package struct BiometryEnroll: BiometryReplyCall, FieldlessCall {
    package static let command = ControlCommand.biometryEnroll
    package init() {}
    package func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) -> BiometryReport {
        try keychain.enrollBiometry()
        return BiometryReport(keychain)
    }
}

/// `device biometry unenroll`.
package struct BiometryUnenroll: BiometryReplyCall, FieldlessCall {
    package static let command = ControlCommand.biometryUnenroll
    package init() {}
    package func perform(on keychain: Keychain, caller: Caller) -> BiometryReport {
        keychain.unenrollBiometry()
        return BiometryReport(keychain)
    }
}

/// `device biometry status`.
package struct BiometryStatusCall: BiometryReplyCall, FieldlessCall {
    package static let command = ControlCommand.biometryStatus
    package init() {}
    package func perform(on keychain: Keychain, caller: Caller) -> BiometryReport { BiometryReport(keychain) }
}

/// `device unlock --biometry [--no-match]`: a face at the lock screen.
package struct UnlockWithBiometry: BiometryReplyCall {
    package static let command = ControlCommand.unlockBiometry
    package let match: Bool
    package init(match: Bool) { self.match = match }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        match = arguments.values["match"] == nil ? true : try arguments.flag("match")
    }
    package var arguments: KeychainDictionary { ["match": .bool(match)] }
    package func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) -> BiometryReport {
        try keychain.unlockWithBiometry(match: match)
        return BiometryReport(keychain)
    }
}

/// `device prompt match|no-match|cancel|accept|passcode [--next]`: answers the oldest pending prompt, or
/// the next one raised; replies the prompt answered (nil when the answer was queued for the next one).
package struct PromptAnswerCall: EngineCall {
    package static let command = ControlCommand.promptAnswer
    package let answer: PromptAnswer
    package let next: Bool
    package init(_ answer: PromptAnswer, next: Bool) {
        self.answer = answer
        self.next = next
    }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        switch arguments.values["answer"]?.stringValue {
        case "match": answer = .match
        case "no-match": answer = .noMatch
        case "cancel": answer = .cancel
        case "accept": answer = .accept
        case "passcode": answer = .passcode(try arguments.data("passcode"))
        default:
            throw KeychainError(SecStatus.param, "the answer must be match, no-match, cancel, accept or passcode")
        }
        next = try arguments.flag("next")  // not a schema code
    }
    package var arguments: KeychainDictionary {
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
    package func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) -> PromptInfo? {
        try keychain.prompts.answer(answer, next: next)
    }
    package static func encode(_ reply: PromptInfo?) -> KeychainValue? { reply?.encoded }
    package static func decode(_ value: KeychainValue?) throws(KeychainError) -> PromptInfo? {
        try value.map { value throws(KeychainError) in try PromptInfo(decoding: value) }
    }
}

/// `device prompt auto MODE`: what answers prompts nobody answers by hand.
package struct PromptAutoCall: EngineCall, EmptyReplyCall {
    package static let command = ControlCommand.promptAuto
    package let mode: PromptAutoMode
    package init(_ mode: PromptAutoMode) { self.mode = mode }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        guard let name = arguments.values["mode"]?.stringValue, let mode = PromptAutoMode(rawValue: name) else {
            throw KeychainError(
                SecStatus.param,
                "auto mode must be one of \(PromptAutoMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.mode = mode
    }
    package var arguments: KeychainDictionary { ["mode": .string(mode.rawValue)] }
    package func perform(on keychain: Keychain, caller: Caller) { keychain.prompts.autoMode = mode }
}

/// `device prompt timeout SECONDS`: how long an unanswered prompt waits before it ends as a user cancel.
package struct PromptTimeoutCall: EngineCall, EmptyReplyCall {
    package static let command = ControlCommand.promptTimeout
    package static let allowed: ClosedRange<Int64> = 1...86_400
    package let seconds: Int64
    package init(seconds: Int64) { self.seconds = seconds }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        guard let seconds = arguments.values["seconds"]?.numberValue else {
            throw KeychainError(SecStatus.param, "missing 'seconds'")
        }
        self.seconds = seconds
    }
    package var arguments: KeychainDictionary { ["seconds": .number(seconds)] }
    package func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) {
        guard Self.allowed.contains(seconds) else {
            throw KeychainError(SecStatus.param, "the prompt timeout must be 1 to 86400 seconds")
        }
        keychain.prompts.timeout = TimeInterval(seconds)
    }
}

/// `device prompts`: the pending prompts, oldest first.
package struct PendingPrompts: EngineCall, FieldlessCall {
    package static let command = ControlCommand.prompts
    package init() {}
    package func perform(on keychain: Keychain, caller: Caller) -> [PromptInfo] { keychain.prompts.pending }
    package static func encode(_ reply: [PromptInfo]) -> KeychainValue? { .array(reply.map(\.encoded)) }
    package static func decode(_ value: KeychainValue?) throws(KeychainError) -> [PromptInfo] {
        var prompts: [PromptInfo] = []
        for item in value?.arrayValue ?? [] { prompts.append(try PromptInfo(decoding: item)) }
        return prompts
    }
}
