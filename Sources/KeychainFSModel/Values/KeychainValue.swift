import Foundation

/// A value in a SecItem dictionary, the engine's stand-in for the CF types Apple's API takes:
/// CFString, CFData, CFNumber, CFBoolean, CFDate, CFArray and CFDictionary.
public enum KeychainValue: Sendable, Hashable {
    case string(String)
    case data(Data)
    case number(Int64)
    case bool(Bool)
    case date(Date)
    case array([KeychainValue])
    case dictionary([String: KeychainValue])

    /// The string, if this is one.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The data, if this is data.
    public var dataValue: Data? { if case .data(let d) = self { d } else { nil } }
    /// The integer, if this is a number (booleans count as 0/1, as CFBoolean does in CFNumber contexts).
    public var numberValue: Int64? {
        switch self {
        case .number(let n): n
        case .bool(let b): b ? 1 : 0
        default: nil
        }
    }
    /// The dictionary, if this is one.
    public var dictionaryValue: [String: KeychainValue]? { if case .dictionary(let d) = self { d } else { nil } }
    /// The array, if this is one.
    public var arrayValue: [KeychainValue]? { if case .array(let a) = self { a } else { nil } }

    /// A short name of the value's type, for error messages (never the value itself).
    public var typeName: String {
        switch self {
        case .string: "string"
        case .data: "data"
        case .number: "number"
        case .bool: "boolean"
        case .date: "date"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }
}

extension KeychainValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

/// A SecItem dictionary keyed by Apple's raw key strings (`"class"`, `"svce"`, `"v_Data"`, …).
public typealias KeychainDictionary = [String: KeychainValue]
