import Foundation
import KeychainFSEngine
import KeychainFSModel

/// The simulated Face ID's state with the prompt settings, as `device biometry status` prints it.
package struct BiometryReport: Sendable, Equatable {
    package var biometry: BiometryStatus
    package var autoAnswer: PromptAutoMode
    /// Seconds.
    package var promptTimeout: Int64
    package var promptsRaised: UInt64

    init(_ keychain: Keychain) {
        biometry = keychain.biometryStatus()
        autoAnswer = keychain.prompts.autoMode
        promptTimeout = Int64(keychain.prompts.timeout)
        promptsRaised = keychain.prompts.raisedCount
    }

    var encoded: KeychainValue {
        var d: KeychainDictionary = [
            "enrolled": .bool(biometry.enrolled), "lockedOut": .bool(biometry.lockedOut),
            "failures": .number(Int64(biometry.failures)), "autoAnswer": .string(autoAnswer.rawValue),
            "promptTimeout": .number(promptTimeout), "promptsRaised": .number(Int64(promptsRaised)),
        ]
        if let domain = biometry.domainState { d["domainState"] = .data(domain) }
        if let last = biometry.lastBiometricUnlock { d["lastBiometricUnlock"] = .date(last) }
        return .dictionary(d)
    }

    init(decoding value: KeychainValue?) throws(KeychainError) {
        guard let d = value?.dictionaryValue, let mode = d["autoAnswer"]?.stringValue.flatMap(PromptAutoMode.init)
        else { throw KeychainError(SecStatus.decode, "malformed biometry status from the daemon") }
        var last: Date?
        if case .date(let date)? = d["lastBiometricUnlock"] { last = date }
        biometry = BiometryStatus(
            enrolled: d["enrolled"] == .bool(true), lockedOut: d["lockedOut"] == .bool(true),
            failures: Int(d["failures"]?.numberValue ?? 0), domainState: d["domainState"]?.dataValue,
            lastBiometricUnlock: last)
        autoAnswer = mode
        promptTimeout = d["promptTimeout"]?.numberValue ?? 0
        promptsRaised = UInt64(max(0, d["promptsRaised"]?.numberValue ?? 0))
    }
}

/// A call answered by a ``BiometryReport``.
package protocol BiometryReplyCall: EngineCall where Reply == BiometryReport {}
extension BiometryReplyCall {
    package static func encode(_ reply: BiometryReport) -> KeychainValue? { reply.encoded }
    package static func decode(_ value: KeychainValue?) throws(KeychainError) -> BiometryReport {
        try BiometryReport(decoding: value)
    }
}

extension PromptInfo {
    /// A pending prompt as it travels: never a secret (the item is its title).
    var encoded: KeychainValue {
        var d: KeychainDictionary = [
            "id": .number(Int64(id)), "kind": .string(kind.rawValue), "reason": .string(reason),
            "raised": .date(raised),
        ]
        if let pid { d["pid"] = .number(Int64(pid)) }
        if let executable { d["executable"] = .string(executable) }
        if let item { d["item"] = .string(item) }
        return .dictionary(d)
    }

    init(decoding value: KeychainValue) throws(KeychainError) {
        guard let d = value.dictionaryValue, let id = d["id"]?.numberValue,
            let kind = d["kind"]?.stringValue.flatMap(PromptKind.init), case .date(let raised)? = d["raised"]
        else { throw KeychainError(SecStatus.decode, "malformed prompt from the daemon") }
        self.init(
            id: UInt64(max(0, id)), kind: kind, reason: d["reason"]?.stringValue ?? "",
            pid: d["pid"]?.numberValue.flatMap { Int32(exactly: $0) }, executable: d["executable"]?.stringValue,
            item: d["item"]?.stringValue, raised: raised)
    }
}
