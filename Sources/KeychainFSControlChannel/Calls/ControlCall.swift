import Foundation
import KeychainFSEngine
import KeychainFSModel

/// One control command as a type: its request's fields, its reply, and the one codec that both the client
/// and the daemon use, so no argument name is written at two ends and no reply is encoded twice.
package protocol ControlCall: Sendable {
    associatedtype Reply: Sendable
    static var command: ControlCommand { get }
    /// The request's fields as they travel (a dictionary frame).
    var arguments: KeychainDictionary { get }
    /// Bytes carried in a second frame (``ControlCommand/attachmentLimit``); nil for none.
    var attachment: Data? { get }
    /// The daemon's side: the request from what arrived; errSecParam names a missing or mistyped field.
    init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError)
    /// The reply as it travels, and back.
    static func encode(_ reply: Reply) -> KeychainValue?
    static func decode(_ value: KeychainValue?) throws(KeychainError) -> Reply
    /// The item the call names, for the audit line (never its value): a query, or an identity's certificate.
    var auditedItem: KeychainDictionary? { get }
}

extension ControlCall {
    package var attachment: Data? { nil }
    package var arguments: KeychainDictionary { [:] }
    package var auditedItem: KeychainDictionary? { nil }

    /// The frame this call sends.
    package var request: ControlRequest { ControlRequest(Self.command, arguments, attachment: attachment) }

    /// The daemon's side: decodes `request` as this call, runs `body`, and encodes its reply with the codec
    /// the client decodes it with.
    package static func serve(_ request: ControlRequest, _ body: (Self) throws(KeychainError) -> Reply)
        throws(KeychainError) -> KeychainValue?
    {
        encode(try body(try Self(CallArguments(request.arguments), attachment: request.attachment)))
    }
}

/// A call without fields: what arrives decodes to the call itself.
package protocol FieldlessCall: ControlCall { init() }
extension FieldlessCall {
    package init(_ arguments: CallArguments, attachment: Data?) { self.init() }
}

/// A call whose one field is a query: the item it names is what the audit line names.
package protocol QueryCall: ControlCall {
    var query: KeychainDictionary { get }
    init(query: KeychainDictionary)
}
extension QueryCall {
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        self.init(query: try arguments.dictionary("query"))
    }
    package var arguments: KeychainDictionary { ["query": .dictionary(query)] }
    package var auditedItem: KeychainDictionary? { query }
}

/// A call whose one field is the device passcode (as data, never echoed).
package protocol PasscodeCall: ControlCall {
    var passcode: Data { get }
    init(passcode: Data)
}
extension PasscodeCall {
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        self.init(passcode: try arguments.data("passcode"))
    }
    package var arguments: KeychainDictionary { ["passcode": .data(passcode)] }
}

/// A call whose reply is a value of the engine's (an item call's result) or nothing.
package protocol ValueReplyCall: ControlCall where Reply == KeychainValue? {}
extension ValueReplyCall {
    package static func encode(_ reply: KeychainValue?) -> KeychainValue? { reply }
    package static func decode(_ value: KeychainValue?) throws(KeychainError) -> KeychainValue? { value }
}

/// A call that replies nothing.
package protocol EmptyReplyCall: ControlCall where Reply == Void {}
extension EmptyReplyCall {
    package static func encode(_ reply: Void) -> KeychainValue? { nil }
    package static func decode(_ value: KeychainValue?) throws(KeychainError) {}
}

/// A request's fields as they arrived, read with a clear errSecParam for each one missing or mistyped.
package struct CallArguments: Sendable {
    package let values: KeychainDictionary

    package init(_ values: KeychainDictionary) { self.values = values }

    package func data(_ name: String) throws(KeychainError) -> Data {
        guard let value = values[name]?.dataValue else { throw KeychainError(SecStatus.param, "missing '\(name)'") }
        return value
    }

    package func string(_ name: String) throws(KeychainError) -> String {
        guard let value = values[name]?.stringValue else { throw KeychainError(SecStatus.param, "missing '\(name)'") }
        return value
    }

    package func dictionary(_ name: String) throws(KeychainError) -> KeychainDictionary {
        guard let value = values[name]?.dictionaryValue else {
            throw KeychainError(SecStatus.param, "missing '\(name)' dictionary")
        }
        return value
    }

    /// A flag: absent is false; anything but a boolean is errSecParam.
    package func flag(_ name: String) throws(KeychainError) -> Bool {
        guard let value = values[name] else { return false }
        guard case .bool(let flag) = value else {
            throw KeychainError(SecStatus.param, "'\(name)' must be true or false")
        }
        return flag
    }
}

extension ControlCommand {
    /// The typed call of this command: its fields, its reply and their codec.
    package var callType: any ControlCall.Type {
        switch self {
        case .status: StatusCall.self
        case .unmount: UnmountCall.self
        case .deviceStatus: DeviceStatusCall.self
        case .deviceLock: DeviceLock.self
        case .deviceReboot: DeviceReboot.self
        case .deviceUnlock: DeviceUnlock.self
        case .passcodeSet: PasscodeSet.self
        case .passcodeChange: PasscodeChange.self
        case .passcodeRemove: PasscodeRemove.self
        case .bootUnlockEnable: BootUnlockEnable.self
        case .bootUnlockDisable: BootUnlockDisable.self
        case .unlockTPM: DeviceUnlockWithTPM.self
        case .autoLock: AutoLockCall.self
        case .itemAdd: ItemAdd.self
        case .itemAddIdentity: ItemAddIdentity.self
        case .itemCopyMatching: ItemCopyMatching.self
        case .itemUpdate: ItemUpdate.self
        case .itemDelete: ItemDelete.self
        case .keySecureEnclave: SecureEnclaveCall.self
        case .backup: BackupCall.self
        case .restore: RestoreCall.self
        case .biometryEnroll: BiometryEnroll.self
        case .biometryUnenroll: BiometryUnenroll.self
        case .biometryStatus: BiometryStatusCall.self
        case .unlockBiometry: UnlockWithBiometry.self
        case .promptAnswer: PromptAnswerCall.self
        case .promptAuto: PromptAutoCall.self
        case .promptTimeout: PromptTimeoutCall.self
        case .prompts: PendingPrompts.self
        case .laCanEvaluate: CanEvaluatePolicy.self
        case .laEvaluate: EvaluatePolicy.self
        case .laInvalidate: InvalidateEvaluation.self
        case .syncNow: SyncNow.self
        case .syncInit: SyncInit.self
        case .syncJoin: SyncJoin.self
        case .syncInvite: SyncInvite.self
        case .syncStatus: SyncStatusCall.self
        case .syncMerge: SyncMerge.self
        case .syncMembers: SyncMembers.self
        case .syncRemove: SyncRemove.self
        case .syncRotate: SyncRotate.self
        case .syncLeave: SyncLeave.self
        }
    }
}

extension ControlClient {
    /// Sends `call` and returns its reply, throwing the daemon's error.
    package func call<Call: ControlCall>(_ call: Call) throws(KeychainError) -> Call.Reply {
        try Call.decode(try send(call.request).check())
    }
}
