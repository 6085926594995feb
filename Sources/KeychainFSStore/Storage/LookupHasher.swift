import KeychainFSModel
import Foundation
import KeychainFSSodium
import Synchronization

/// Computes the lookup columns: keyed BLAKE2b of each attribute's bytes under the device-bound
/// index key, so that equality search and UNIQUE work in SQL while no attribute is stored in plaintext.
package struct LookupHasher: Sendable {
    package let indexKey: GuardedKey
    /// The columns of the schema's constants, hashed once each under this key (``SchemaConstants``).
    private let constantColumns = ConstantColumns()

    package init(indexKey: GuardedKey) { self.indexKey = indexKey }

    /// Bytes an attribute value is matched on. Strings and data with the same bytes are equal,
    /// as Apple's SHA-1 columns make them (docs/reference/keychain-semantics.md §3.2).
    package static func matchBytes(_ value: KeychainValue) -> Data {
        switch value {
        case .string(let s): Data(s.utf8)
        case .data(let d): d
        case .number(let n): Data(String(n).utf8)
        case .bool(let b): Data((b ? "1" : "0").utf8)
        case .date(let d): withUnsafeBytes(of: d.timeIntervalSinceReferenceDate.bitPattern.bigEndian) { Data($0) }
        case .array, .dictionary: ValueCodec.encode(value)
        }
    }

    /// ``KeyDerivation/keyedHash(_:key:outputBytes:)`` of `[code, matchBytes(value)]`, hashed in place
    /// (a string's bytes are not copied into a Data first: a lookup hashes a dozen columns).
    package func hash(_ code: String, _ value: KeychainValue) -> Data {
        guard let slot = SchemaConstants.slot(code, value) else { return computeHash(code, value) }
        if let known = constantColumns.memo.withLock({ $0[slot] }) { return known }
        let computed = computeHash(code, value)
        constantColumns.memo.withLock { $0[slot] = computed }
        return computed
    }

    private func computeHash(_ code: String, _ value: KeychainValue) -> Data {
        var code = code
        return code.withUTF8 { codeBytes in
            if case .string(var text) = value {
                return text.withUTF8 {
                    KeyDerivation.keyedHash(
                        UnsafeRawBufferPointer(codeBytes), UnsafeRawBufferPointer($0), key: indexKey)
                }
            }
            return Self.matchBytes(value).withUnsafeBytes {
                KeyDerivation.keyedHash(UnsafeRawBufferPointer(codeBytes), $0, key: indexKey)
            }
        }
    }

    /// ``columns(for:schema:)`` of an item changed from `old`, whose columns were `oldColumns` (a row's
    /// columns, authenticated with `old` by its attribute box): an attribute matched on the same bytes as
    /// before keeps its column, so an update of a value hashes only its `mdat`.
    package func columns(
        for attributes: [String: KeychainValue], schema: ItemClassSchema, updating old: [String: KeychainValue],
        columns oldColumns: [Data?]
    ) -> [Data?] {
        guard oldColumns.count == schema.attributes.count else { return columns(for: attributes, schema: schema) }
        return schema.attributes.indices.map { index in
            let attribute = schema.attributes[index]
            guard let value = Self.hashedValue(attribute, attributes) else { return nil }
            if let kept = oldColumns[index], let before = Self.hashedValue(attribute, old),
                Self.matchSameBytes(value, before)
            {
                return kept
            }
            return hash(attribute.code, value)
        }
    }

    /// Whether two values are matched on the same bytes (``matchBytes(_:)``): strings by their UTF-8, not
    /// by Swift's canonical equivalence, under which two differently hashed strings are equal.
    package static func matchSameBytes(_ a: KeychainValue, _ b: KeychainValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): x.utf8.elementsEqual(y.utf8)
        case (.data(let x), .data(let y)): x == y
        default: matchBytes(a) == matchBytes(b)
        }
    }

    /// The lookup column of every attribute of `schema` for an item: the value's hash, the default's
    /// hash for absent primary-key attributes (never NULL, docs/reference/keychain-semantics.md §2.1), NULL for other absent ones.
    /// In the schema's attribute order.
    package func columns(for attributes: [String: KeychainValue], schema: ItemClassSchema) -> [Data?] {
        schema.attributes.map { attribute in Self.hashedValue(attribute, attributes).map { hash(attribute.code, $0) } }
    }

    /// The value an attribute's column hashes: the item's, or the default of an absent primary-key attribute.
    private static func hashedValue(_ attribute: AttributeDescriptor, _ attributes: [String: KeychainValue])
        -> KeychainValue?
    {
        attributes[attribute.code] ?? (attribute.isPrimaryKey ? attribute.defaultValue : nil)
    }
}

/// The values an attribute takes from the schema itself: its default (`sync` 0, an empty view hint, token
/// and group) and, for `pdmn`, the accessibility classes. Every add carries about seven of them and every
/// search the implicit `sync`; their columns are a function of the index key alone, so each hasher works
/// each out once (measured: a keyed BLAKE2b is about 4,500 instructions). No item's own data is kept.
enum SchemaConstants {
    /// By attribute code: its constant values and their slots in a hasher's memo.
    private static let slots: [String: [(value: KeychainValue, slot: Int)]] = {
        var table: [String: [(value: KeychainValue, slot: Int)]] = [:]
        var next = 0
        func add(_ code: String, _ value: KeychainValue) {
            guard !(table[code]?.contains { LookupHasher.matchSameBytes($0.value, value) } ?? false) else { return }
            table[code, default: []].append((value, next))
            next += 1
        }
        for schema in Schema.storedClasses {
            for attribute in schema.attributes { if let value = attribute.defaultValue { add(attribute.code, value) } }
        }
        for accessibility in Accessibility.allCases { add(Attributes.accessible.code, .string(accessibility.rawValue)) }
        return table
    }()

    static func slot(_ code: String, _ value: KeychainValue) -> Int? {
        slots[code]?.first { LookupHasher.matchSameBytes($0.value, value) }?.slot
    }
}

/// A hasher's memo of ``SchemaConstants``' columns, shared by its copies.
private final class ConstantColumns: Sendable {
    let memo = Mutex<[Int: Data]>([:])
}
