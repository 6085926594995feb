import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSSync

// Sync's commands (docs/sync.md): each runs in a ``SyncSession``, the daemon's or, when no daemon serves
// the vault, the CLI's own (``KeychainClient``'s route), the same way.

/// A sync command: what it does in a session.
package protocol SyncCall: ControlCall {
    /// Whether the call changes the clone or the circle: a daemon runs one such call at a time.
    static var changesClone: Bool { get }
    func perform(in session: SyncSession) throws(KeychainError) -> Reply
}

/// A sync command answered by a ``SyncReport``.
package protocol SyncReportCall: SyncCall where Reply == SyncReport {}
extension SyncReportCall {
    package static var changesClone: Bool { true }
    package static func encode(_ reply: SyncReport) -> KeychainValue? { .dictionary(reply.dictionary) }
    package static func decode(_ value: KeychainValue?) throws(KeychainError) -> SyncReport {
        SyncReport(value?.dictionaryValue ?? [:])
    }
}

/// `sync now`: fetch, merge, push.
package struct SyncNow: SyncReportCall, FieldlessCall {
    package static let command = ControlCommand.syncNow
    package init() {}
    package func perform(in session: SyncSession) throws(KeychainError) -> SyncReport { try session.sync() }
}

/// `sync init REMOTE --name NAME`: a new circle.
package struct SyncInit: SyncReportCall {
    package static let command = ControlCommand.syncInit
    package let remote: String
    package let name: String
    package init(remote: String, name: String) {
        self.remote = remote
        self.name = name
    }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        remote = try arguments.string("remote")
        name = try arguments.string("name")
    }
    package var arguments: KeychainDictionary { ["remote": .string(remote), "name": .string(name)] }
    package func perform(in session: SyncSession) throws(KeychainError) -> SyncReport {
        try session.initialize(remote: remote, name: name)
    }
}

/// `sync join REMOTE --code-stdin --name NAME`: the code travels in the request, never in argv.
package struct SyncJoin: SyncReportCall {
    package static let command = ControlCommand.syncJoin
    package let remote: String
    package let code: InvitationCode
    package let name: String
    package init(remote: String, code: InvitationCode, name: String) {
        self.remote = remote
        self.code = code
        self.name = name
    }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        remote = try arguments.string("remote")
        let text = try arguments.string("code")
        do { code = try InvitationCode.parse(text) } catch { throw KeychainError(SecStatus.param, error.message) }
        name = try arguments.string("name")
    }
    package var arguments: KeychainDictionary {
        ["remote": .string(remote), "code": .string(code.canonical), "name": .string(name)]
    }
    package func perform(in session: SyncSession) throws(KeychainError) -> SyncReport {
        try session.join(remote: remote, code: code, name: name)
    }
}

/// `sync remove MEMBER`: a new epoch without it.
package struct SyncRemove: SyncReportCall {
    package static let command = ControlCommand.syncRemove
    package let member: String
    package init(member: String) { self.member = member }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        member = try arguments.string("member")
    }
    package var arguments: KeychainDictionary { ["member": .string(member)] }
    package func perform(in session: SyncSession) throws(KeychainError) -> SyncReport { try session.remove(member) }
}

/// `sync rotate`: a new epoch, nobody removed.
package struct SyncRotate: SyncReportCall, FieldlessCall {
    package static let command = ControlCommand.syncRotate
    package init() {}
    package func perform(in session: SyncSession) throws(KeychainError) -> SyncReport { try session.rotate() }
}

/// `sync leave`.
package struct SyncLeave: SyncReportCall, FieldlessCall {
    package static let command = ControlCommand.syncLeave
    package init() {}
    package func perform(in session: SyncSession) throws(KeychainError) -> SyncReport { try session.leave() }
}

/// `sync invite [--expires SECONDS]`: a one-time code, grouped for people.
package struct SyncInvite: SyncCall {
    package static let command = ControlCommand.syncInvite
    package static let changesClone = true
    package let seconds: Int64
    package init(seconds: Int64) { self.seconds = seconds }
    package init(_ arguments: CallArguments, attachment: Data?) {
        seconds = arguments.values["seconds"]?.numberValue ?? 3600
    }
    package var arguments: KeychainDictionary { ["seconds": .number(seconds)] }
    package func perform(in session: SyncSession) throws(KeychainError) -> String {
        guard seconds > 0 else {
            throw KeychainError(SecStatus.param, "an invitation lives a positive number of seconds")
        }
        return try session.invite(lifetime: TimeInterval(seconds)).grouped
    }
    package static func encode(_ reply: String) -> KeychainValue? { .string(reply) }
    package static func decode(_ value: KeychainValue?) throws(KeychainError) -> String {
        guard let code = value?.stringValue else { throw KeychainError(SecStatus.decode, "no invitation code") }
        return code
    }
}

/// `sync status`: whether the vault syncs, with which remote, how many items (key: value for people).
package struct SyncStatusCall: SyncCall, FieldlessCall {
    package static let command = ControlCommand.syncStatus
    package static let changesClone = false
    package init() {}
    package func perform(in session: SyncSession) throws(KeychainError) -> KeychainDictionary {
        try session.status()
    }
    package static func encode(_ reply: KeychainDictionary) -> KeychainValue? { .dictionary(reply) }
    package static func decode(_ value: KeychainValue?) -> KeychainDictionary { value?.dictionaryValue ?? [:] }
}

/// `sync members`: the circle as this vault last verified it.
package struct SyncMembers: SyncCall, FieldlessCall {
    package static let command = ControlCommand.syncMembers
    package static let changesClone = false
    package init() {}
    package func perform(in session: SyncSession) throws(KeychainError) -> [KeychainDictionary] {
        try session.members().compactMap(\.dictionaryValue)
    }
    package static func encode(_ reply: [KeychainDictionary]) -> KeychainValue? {
        .array(reply.map(KeychainValue.dictionary))
    }
    package static func decode(_ value: KeychainValue?) -> [KeychainDictionary] {
        (value?.arrayValue ?? []).compactMap(\.dictionaryValue)
    }
}

/// git's merge driver: two versions of one item file merged by the engine's rule (the newer wins).
package struct SyncMerge: SyncCall {
    package static let command = ControlCommand.syncMerge
    /// git runs the driver while a sync holds the clone: never behind that sync's gate.
    package static let changesClone = false
    package let name: String
    package let ours: Data
    package let theirs: Data
    package init(name: String, ours: Data, theirs: Data) {
        self.name = name
        self.ours = ours
        self.theirs = theirs
    }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        name = try arguments.string("name")
        ours = try arguments.data("ours")
        theirs = try arguments.data("theirs")
    }
    package var arguments: KeychainDictionary { ["name": .string(name), "ours": .data(ours), "theirs": .data(theirs)] }
    package func perform(in session: SyncSession) throws(KeychainError) -> Data {
        try session.access.with { keychain throws(KeychainError) in
            try keychain.mergeSyncFiles(name: name, ours: ours, theirs: theirs)
        }
    }
    package static func encode(_ reply: Data) -> KeychainValue? { .data(reply) }
    package static func decode(_ value: KeychainValue?) throws(KeychainError) -> Data { value?.dataValue ?? Data() }
}
