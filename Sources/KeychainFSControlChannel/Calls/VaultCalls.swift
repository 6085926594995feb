import Foundation
import KeychainFSEngine
import KeychainFSModel

/// `keychainfs backup`: the daemon answers the sealed archive; the client writes the file.
package struct BackupCall: ControlCall {
    package static let command = ControlCommand.backup
    package let password: Data
    package init(password: Data) { self.password = password }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        password = try arguments.data("password")
    }
    package var arguments: KeychainDictionary { ["password": .data(password)] }

    package struct Archive: Sendable {
        package var items: Int
        package var bytes: Data
        package init(items: Int, bytes: Data) {
            self.items = items
            self.bytes = bytes
        }
    }
    package static func encode(_ archive: Archive) -> KeychainValue? {
        .dictionary(["items": .number(Int64(archive.items)), "archive": .data(archive.bytes)])
    }
    package static func decode(_ value: KeychainValue?) throws(KeychainError) -> Archive {
        guard let d = value?.dictionaryValue, let bytes = d["archive"]?.dataValue else {
            throw KeychainError(SecStatus.decode, "the daemon sent no archive")
        }
        return Archive(items: Int(d["items"]?.numberValue ?? 0), bytes: bytes)
    }
}

/// `keychainfs restore`: the client sends the archive it read as the attachment (never a path).
package struct RestoreCall: ControlCall {
    package static let command = ControlCommand.restore
    package let password: Data
    package let merge: Bool
    package let archive: Data
    package init(archive: Data, password: Data, merge: Bool) {
        self.archive = archive
        self.password = password
        self.merge = merge
    }
    package init(_ arguments: CallArguments, attachment: Data?) throws(KeychainError) {
        guard let attachment else {
            throw KeychainError(SecStatus.param, "restore carries the backup's bytes, not a path")
        }
        archive = attachment
        password = try arguments.data("password")
        merge = try arguments.flag("merge")
    }
    package var arguments: KeychainDictionary { ["password": .data(password), "merge": .bool(merge)] }
    package var attachment: Data? { archive }

    package static func encode(_ outcome: RestoreOutcome) -> KeychainValue? {
        .dictionary([
            "added": .number(Int64(outcome.added)), "replaced": .number(Int64(outcome.replaced)),
            "kept": .number(Int64(outcome.kept)),
        ])
    }
    package static func decode(_ value: KeychainValue?) throws(KeychainError) -> RestoreOutcome {
        let d = value?.dictionaryValue ?? [:]
        return RestoreOutcome(
            added: Int(d["added"]?.numberValue ?? 0), replaced: Int(d["replaced"]?.numberValue ?? 0),
            kept: Int(d["kept"]?.numberValue ?? 0))
    }
}
