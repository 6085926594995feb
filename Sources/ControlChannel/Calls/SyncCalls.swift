import Foundation
import KeychainEngine
import KeychainModel
import KeychainSync

// Sync's commands (docs/sync.md): each runs in a ``SyncSession``, the daemon's or, when no daemon serves
// the vault, the CLI's own (``KeychainClient``'s route), the same way.

/// A sync command: what it does in a session.
public protocol SyncCall: ControlCall {
    /// Whether the call changes the clone or the circle: a daemon runs one such call at a time.
    static var changesClone: Bool { get }
    func perform(in session: SyncSession) throws(KeychainError) -> Reply
}

/// A sync command answered by a ``SyncReport``.
public protocol SyncReportCall: SyncCall where Reply == SyncReport {}
extension SyncReportCall {
    public static var changesClone: Bool { true }
    public static func encode(_ reply: SyncReport) -> KeychainValue? { .dictionary(reply.dictionary) }
    public static func decode(_ value: KeychainValue?) throws(KeychainError) -> SyncReport {
        SyncReport(value?.dictionaryValue ?? [:])
    }
}

/// `sync now`: fetch, merge, push.
public struct SyncNow: SyncReportCall {
    public static let command = ControlCommand.syncNow
    public init() {}
    public init(_ arguments: CallArguments, attachment: Data?) {}
    public func perform(in session: SyncSession) throws(KeychainError) -> SyncReport { try session.sync() }
}

/// `sync init REMOTE --name NAME`: a new circle.
public struct SyncInit: SyncReportCall {
    public static let command = ControlCommand.syncInit
    public let remote: String
    public let name: String
    public init(remote: String, name: String) {
        self.remote = remote
        self.name = name
    }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        remote = try arguments.string("remote")
        name = try arguments.string("name")
    }
    public var arguments: KeychainDictionary { ["remote": .string(remote), "name": .string(name)] }
    public func perform(in session: SyncSession) throws(KeychainError) -> SyncReport {
        try session.initialize(remote: remote, name: name)
    }
}

/// `sync join REMOTE --code-stdin --name NAME`: the code travels in the request, never in argv.
public struct SyncJoin: SyncReportCall {
    public static let command = ControlCommand.syncJoin
    public let remote: String
    public let code: InvitationCode
    public let name: String
    public init(remote: String, code: InvitationCode, name: String) {
        self.remote = remote
        self.code = code
        self.name = name
    }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        remote = try arguments.string("remote")
        let text = try arguments.string("code")
        do { code = try InvitationCode.parse(text) } catch { throw KeychainError(SecStatus.param, error.message) }
        name = try arguments.string("name")
    }
    public var arguments: KeychainDictionary {
        ["remote": .string(remote), "code": .string(code.canonical), "name": .string(name)]
    }
    public func perform(in session: SyncSession) throws(KeychainError) -> SyncReport {
        try session.join(remote: remote, code: code, name: name)
    }
}

/// `sync remove MEMBER`: a new epoch without it.
public struct SyncRemove: SyncReportCall {
    public static let command = ControlCommand.syncRemove
    public let member: String
    public init(member: String) { self.member = member }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        member = try arguments.string("member")
    }
    public var arguments: KeychainDictionary { ["member": .string(member)] }
    public func perform(in session: SyncSession) throws(KeychainError) -> SyncReport { try session.remove(member) }
}

/// `sync rotate`: a new epoch, nobody removed.
public struct SyncRotate: SyncReportCall {
    public static let command = ControlCommand.syncRotate
    public init() {}
    public init(_ arguments: CallArguments, attachment: Data?) {}
    public func perform(in session: SyncSession) throws(KeychainError) -> SyncReport { try session.rotate() }
}

/// `sync leave`.
public struct SyncLeave: SyncReportCall {
    public static let command = ControlCommand.syncLeave
    public init() {}
    public init(_ arguments: CallArguments, attachment: Data?) {}
    public func perform(in session: SyncSession) throws(KeychainError) -> SyncReport { try session.leave() }
}

/// `sync invite [--expires SECONDS]`: a one-time code, grouped for people.
public struct SyncInvite: SyncCall {
    public static let command = ControlCommand.syncInvite
    public static let changesClone = true
    public let seconds: Int64
    public init(seconds: Int64) { self.seconds = seconds }
    public init(_ arguments: CallArguments, attachment: Data?) {
        seconds = arguments.values["seconds"]?.numberValue ?? 3600
    }
    public var arguments: KeychainDictionary { ["seconds": .number(seconds)] }
    public func perform(in session: SyncSession) throws(KeychainError) -> String {
        guard seconds > 0 else {
            throw KeychainError(SecStatus.param, "an invitation lives a positive number of seconds")
        }
        return try session.invite(lifetime: TimeInterval(seconds)).grouped
    }
    public static func encode(_ reply: String) -> KeychainValue? { .string(reply) }
    public static func decode(_ value: KeychainValue?) throws(KeychainError) -> String {
        guard let code = value?.stringValue else { throw KeychainError(SecStatus.decode, "no invitation code") }
        return code
    }
}

/// `sync status`: whether the vault syncs, with which remote, how many items (key: value for people).
public struct SyncStatusCall: SyncCall {
    public static let command = ControlCommand.syncStatus
    public static let changesClone = false
    public init() {}
    public init(_ arguments: CallArguments, attachment: Data?) {}
    public func perform(in session: SyncSession) throws(KeychainError) -> KeychainDictionary {
        try session.status()
    }
    public static func encode(_ reply: KeychainDictionary) -> KeychainValue? { .dictionary(reply) }
    public static func decode(_ value: KeychainValue?) -> KeychainDictionary { value?.dictionaryValue ?? [:] }
}

/// `sync members`: the circle as this vault last verified it.
public struct SyncMembers: SyncCall {
    public static let command = ControlCommand.syncMembers
    public static let changesClone = false
    public init() {}
    public init(_ arguments: CallArguments, attachment: Data?) {}
    public func perform(in session: SyncSession) throws(KeychainError) -> [KeychainDictionary] {
        try session.members().compactMap(\.dictionaryValue)
    }
    public static func encode(_ reply: [KeychainDictionary]) -> KeychainValue? {
        .array(reply.map(KeychainValue.dictionary))
    }
    public static func decode(_ value: KeychainValue?) -> [KeychainDictionary] {
        (value?.arrayValue ?? []).compactMap(\.dictionaryValue)
    }
}

/// git's merge driver: two versions of one item file merged by the engine's rule (the newer wins).
public struct SyncMerge: SyncCall {
    public static let command = ControlCommand.syncMerge
    /// git runs the driver while a sync holds the clone: never behind that sync's gate.
    public static let changesClone = false
    public let name: String
    public let ours: Data
    public let theirs: Data
    public init(name: String, ours: Data, theirs: Data) {
        self.name = name
        self.ours = ours
        self.theirs = theirs
    }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        name = try arguments.string("name")
        ours = try arguments.data("ours")
        theirs = try arguments.data("theirs")
    }
    public var arguments: KeychainDictionary { ["name": .string(name), "ours": .data(ours), "theirs": .data(theirs)] }
    public func perform(in session: SyncSession) throws(KeychainError) -> Data {
        try session.access.with { keychain throws(KeychainError) in
            try keychain.mergeSyncFiles(name: name, ours: ours, theirs: theirs)
        }
    }
    public static func encode(_ reply: Data) -> KeychainValue? { .data(reply) }
    public static func decode(_ value: KeychainValue?) throws(KeychainError) -> Data { value?.dataValue ?? Data() }
}
