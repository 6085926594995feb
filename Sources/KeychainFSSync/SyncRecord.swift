import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Crypto
import Foundation

/// One synchronizable item as the repository carries it (docs/spec.md §14): its class, every attribute, the
/// secret, and whether it is a tombstone. A tombstone keeps the primary key and cdat, with a new mdat.
package struct SyncRecord: Sendable, Equatable {
    /// The item class (`genp`, `inet`, `cert`, `keys`).
    package var classCode: String
    /// Every attribute, by Apple's raw code.
    package var attributes: [String: KeychainValue]
    /// The item's data, nil for tombstones and items without data.
    package var secret: Data?
    /// Whether the item was deleted.
    package var deleted: Bool

    /// Makes a record.
    package init(classCode: String, attributes: [String: KeychainValue], secret: Data?, deleted: Bool) {
        self.classCode = classCode
        self.attributes = attributes
        self.secret = secret
        self.deleted = deleted
    }

    /// The modification date, as Apple's merge rule compares it (absent: the earliest date).
    package var modificationDate: Date {
        if case .date(let d) = attributes[Attributes.modificationDate.code] { return d }
        return .distantPast
    }

    /// The record's canonical bytes (ValueCodec sorts dictionary keys, so equal records encode equally).
    package var encoded: Data {
        var d: [String: KeychainValue] = [
            QueryKey.class: .string(classCode), "attributes": .dictionary(attributes), "deleted": .bool(deleted),
        ]
        if let secret { d["secret"] = .data(secret) }
        return ValueCodec.encode(.dictionary(d))
    }

    /// SHA-256 of the canonical bytes: the tie-breaker of the merge rule.
    package var digest: Data { Data(SHA256.hash(data: encoded)) }

    /// Parses canonical bytes (a fuzz target: any input gives a record or a typed error, never a crash).
    package static func decode(_ bytes: Data) throws(SyncFormatError) -> SyncRecord {
        let value: KeychainValue
        do { value = try ValueCodec.decode(bytes) } catch { throw SyncFormatError("the item record is malformed") }
        guard case .dictionary(let d) = value, let classCode = d[QueryKey.class]?.stringValue,
            let schema = Schema.schema(for: classCode), !schema.isVirtual,
            case .dictionary(let attributes)? = d["attributes"], case .bool(let deleted)? = d["deleted"]
        else {
            throw SyncFormatError("the item record lacks its class, attributes or deletion flag")
        }
        for code in attributes.keys where schema.attribute(code) == nil {
            throw SyncFormatError("the item record has an attribute its class does not have")
        }
        var secret: Data?
        if let s = d["secret"] {
            guard case .data(let data) = s else { throw SyncFormatError("the item record's secret is not data") }
            secret = data
        }
        return SyncRecord(classCode: classCode, attributes: attributes, secret: secret, deleted: deleted)
    }

    /// The tombstone of this record: primary key and cdat kept, mdat `at`, nothing else.
    package func tombstone(at date: Date) -> SyncRecord {
        let schema = Schema.schema(for: classCode)!
        var kept: [String: KeychainValue] = [:]
        for attribute in schema.primaryKey { kept[attribute.code] = attributes[attribute.code] }
        kept[Attributes.creationDate.code] = attributes[Attributes.creationDate.code]
        kept[Attributes.accessible.code] = attributes[Attributes.accessible.code]
        kept[Attributes.modificationDate.code] = .date(date)
        return SyncRecord(classCode: classCode, attributes: kept, secret: nil, deleted: true)
    }

    /// The values that identify the item across vaults: class and primary key, as matched (strings and
    /// data with the same bytes are the same key, as in the vault's UNIQUE index).
    package var identityParts: [Data] {
        let schema = Schema.schema(for: classCode)!
        return [Data(classCode.utf8)]
            + schema.primaryKey.map { attribute in
                let value = attributes[attribute.code] ?? attribute.defaultValue
                return Data(attribute.code.utf8) + [0] + (value.map(LookupHasher.matchBytes) ?? Data())
            }
    }
}

/// Apple's conflict rule for synchronized items: the newer mdat wins; a tie goes to the smaller digest.
/// A tombstone is an item like any other.
package enum SyncMergeRule {
    /// The record that wins between two versions of one item.
    package static func winner(_ a: SyncRecord, _ b: SyncRecord) -> SyncRecord {
        if a.modificationDate != b.modificationDate { return a.modificationDate > b.modificationDate ? a : b }
        return a.digest.lexicographicallyPrecedes(b.digest) || a.digest == b.digest ? a : b
    }
}

/// A repository file that cannot be read: a clear message that names no item.
package struct SyncFormatError: Error, Equatable, CustomStringConvertible, Sendable {
    /// What is wrong with the file.
    package let message: String
    /// Makes an error.
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
