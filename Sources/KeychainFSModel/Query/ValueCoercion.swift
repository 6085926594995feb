import Foundation

/// Converts a caller's value to the attribute's kind, as Apple's server does (docs/reference/keychain-semantics.md §3.2).
/// Any value that cannot be converted is errSecParam.
package enum ValueCoercion {
    package static func coerce(_ value: KeychainValue, to attribute: AttributeDescriptor) throws(KeychainError)
        -> KeychainValue
    {
        // Made only when thrown: interpolating it on every call was a tenth of a query's parse (measured).
        var bad: KeychainError { .param("attribute '\(attribute.code)' cannot take a \(value.typeName) value") }
        switch attribute.kind {
        case .blob:
            switch value {
            case .string, .data, .number: return value
            case .bool(let b): return .number(b ? 1 : 0)
            default: throw bad
            }
        case .data:
            switch value {
            case .data: return value
            case .string(let s): return .data(Data(s.utf8))
            case .number(let n): return .data(withUnsafeBytes(of: Int32(truncatingIfNeeded: n)) { Data($0) })
            default: throw bad
            }
        case .string:
            switch value {
            case .string: return value
            case .data(let d):
                guard let s = String(validating: d, as: UTF8.self) else { throw bad }
                return .string(s)
            default: throw bad
            }
        case .number:
            let number: KeychainValue
            switch value {
            case .number: number = value
            case .bool(let b): number = .number(b ? 1 : 0)
            case .string(let s): number = Int64(s).map(KeychainValue.number) ?? value
            default: throw bad
            }
            // Every way in (SecItem calls, the control socket, the CLI's options) comes through here.
            if case .number(let n) = number, !attribute.range.contains(n) {
                throw .param(
                    "attribute '\(attribute.code)' (\(attribute.name)) takes \(attribute.range); \(n) is out of range")
            }
            return number
        case .date:
            guard case .date(let date) = value else { throw bad }
            guard DateRange.contains(date) else {
                throw .param("attribute '\(attribute.code)' takes dates in years 1 through 9999")
            }
            return value
        case .accessibility:
            let raw: String? =
                switch value {
                case .string(let s): s
                case .data(let d): String(validating: d, as: UTF8.self)
                default: nil
                }
            guard let raw, Accessibility(rawValue: raw) != nil else {
                throw .param(
                    "kSecAttrAccessible must be one of \(Accessibility.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            return .string(raw)
        case .synchronizable:
            switch value {
            case .bool(let b): return .number(b ? 1 : 0)
            case .number(let n): return .number(n != 0 ? 1 : 0)
            case .string(let s):
                guard let n = Int64(s) else { throw bad }
                return .number(n != 0 ? 1 : 0)
            default: throw bad
            }
        }
    }
}
