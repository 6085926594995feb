import Foundation

/// One D-Bus value, as read from or written to a message: the service works on these, never on sd-bus
/// pointers, so what arrives from the bus is checked in Swift (and can be fuzzed without a bus).
package indirect enum BusValue: Sendable, Equatable {
    case byte(UInt8)
    case bool(Bool)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// `ay`, kept as bytes (secrets, parameters, DH keys).
    case bytes(Data)
    /// `a<element>` other than `ay` and dictionaries.
    case array(element: String, [BusValue])
    /// `a{kv}`, in message order.
    case dictionary(key: String, value: String, [DictionaryEntry])
    case structure([BusValue])
    case variant(BusValue)

    package struct DictionaryEntry: Sendable, Equatable {
        package var key: BusValue
        package var value: BusValue
        package init(_ key: BusValue, _ value: BusValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value's D-Bus signature.
    package var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .bytes: "ay"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// `a{ss}` from a Swift dictionary, keys sorted (a stable answer for the same item).
    package static func stringMap(_ map: [String: String]) -> BusValue {
        .dictionary(key: "s", value: "s", map.keys.sorted().map { DictionaryEntry(.string($0), .string(map[$0]!)) })
    }

    /// `a{sv}` from a Swift dictionary, keys sorted.
    package static func properties(_ map: [String: BusValue]) -> BusValue {
        .dictionary(key: "s", value: "v", map.keys.sorted().map { DictionaryEntry(.string($0), .variant(map[$0]!)) })
    }

    /// `ao`.
    package static func paths(_ paths: [String]) -> BusValue { .array(element: "o", paths.map(BusValue.objectPath)) }

    package var stringValue: String? {
        switch self {
        case .string(let s), .objectPath(let s), .signature(let s): s
        case .variant(let inner): inner.stringValue
        default: nil
        }
    }

    package var boolValue: Bool? {
        switch self {
        case .bool(let b): b
        case .variant(let inner): inner.boolValue
        default: nil
        }
    }

    package var bytesValue: Data? {
        switch self {
        case .bytes(let d): d
        case .variant(let inner): inner.bytesValue
        case .array(let element, let items) where element == "y" && items.isEmpty: Data()
        default: nil
        }
    }

    /// The entries of a dictionary (through a variant).
    package var entries: [DictionaryEntry]? {
        switch self {
        case .dictionary(_, _, let entries): entries
        case .variant(let inner): inner.entries
        default: nil
        }
    }

    /// The elements of an array (`ao`, `as`, …).
    package var elements: [BusValue]? {
        switch self {
        case .array(_, let items): items
        case .variant(let inner): inner.elements
        default: nil
        }
    }
}
