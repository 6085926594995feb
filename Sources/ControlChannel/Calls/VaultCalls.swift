import Foundation
import KeychainEngine
import KeychainModel

/// `keychainfs backup`: the daemon answers the sealed archive; the client writes the file.
public struct BackupCall: ControlCall {
    public static let command = ControlCommand.backup
    public let password: Data
    public init(password: Data) { self.password = password }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        password = try arguments.data("password")
    }
    public var arguments: KeychainDictionary { ["password": .data(password)] }

    public struct Archive: Sendable {
        public var items: Int
        public var bytes: Data
        public init(items: Int, bytes: Data) {
            self.items = items
            self.bytes = bytes
        }
    }
    public static func encode(_ archive: Archive) -> KeychainValue? {
        .dictionary(["items": .number(Int64(archive.items)), "archive": .data(archive.bytes)])
    }
    public static func decode(_ value: KeychainValue?) throws(KeychainError) -> Archive {
        guard let d = value?.dictionaryValue, let bytes = d["archive"]?.dataValue else {
            throw KeychainError(SecStatus.decode, "the daemon sent no archive")
        }
        return Archive(items: Int(d["items"]?.numberValue ?? 0), bytes: bytes)
    }
}

/// `keychainfs restore`: the client sends the archive it read as the attachment (never a path).
public struct RestoreCall: ControlCall {
    public static let command = ControlCommand.restore
    public let password: Data
    public let merge: Bool
    public let archive: Data
    public init(archive: Data, password: Data, merge: Bool) {
        self.archive = archive
        self.password = password
        self.merge = merge
    }
    public init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        guard let attachment else {
            throw KeychainError(SecStatus.param, "restore carries the backup's bytes, not a path")
        }
        archive = attachment
        password = try arguments.data("password")
        merge = try arguments.flag("merge")
    }
    public var arguments: KeychainDictionary { ["password": .data(password), "merge": .bool(merge)] }
    public var attachment: Data? { archive }

    public static func encode(_ outcome: RestoreOutcome) -> KeychainValue? {
        .dictionary([
            "added": .number(Int64(outcome.added)), "replaced": .number(Int64(outcome.replaced)),
            "kept": .number(Int64(outcome.kept)),
        ])
    }
    public static func decode(_ value: KeychainValue?) throws(KeychainError) -> RestoreOutcome {
        let d = value?.dictionaryValue ?? [:]
        return RestoreOutcome(
            added: Int(d["added"]?.numberValue ?? 0), replaced: Int(d["replaced"]?.numberValue ?? 0),
            kept: Int(d["kept"]?.numberValue ?? 0))
    }
}
