import Foundation
import KeychainFSModel

/// Attribute values as xattr bytes (docs/spec.md §4 "Attributes as xattrs"): strings as UTF-8, data raw,
/// numbers as decimal, dates as ISO 8601 UTC with milliseconds, enumerations by constant name
/// (the raw value is accepted on write).
package enum XattrFormat {
    /// Prefix of every keychain xattr.
    package static let namespace = "user."
    /// The read-only persistent-reference xattr.
    package static let persistentRefName = "kSecValuePersistentRef"

    package static func encode(_ value: KeychainValue, as attribute: AttributeDescriptor) -> Data {
        if let name = attribute.enumeration?.name(of: value) { return Data(name.utf8) }
        switch value {
        case .string(let s): return Data(s.utf8)
        case .data(let d): return d
        case .number(let n): return Data(String(n).utf8)
        case .bool(let b): return Data((b ? "1" : "0").utf8)
        case .date(let d): return Data(formatDate(d).utf8)
        case .array, .dictionary: return ValueCodec.encode(value)
        }
    }

    /// Parses bytes written with setfattr; nil when they do not fit the attribute's kind.
    package static func decode(_ bytes: Data, as attribute: AttributeDescriptor) -> KeychainValue? {
        let text = String(validating: bytes, as: UTF8.self)
        if let enumeration = attribute.enumeration, let text {
            if let raw = enumeration.raw(named: text) { return raw }
            if enumeration.cases.contains(where: { $0.raw == .string(text) }) { return .string(text) }
            if enumeration.isClosed {
                return enumeration.cases.first { $0.raw == Int64(text).map(KeychainValue.number) }?.raw
            }
        }
        switch attribute.kind {
        case .blob: return text.map(KeychainValue.string) ?? .data(bytes)
        case .data: return .data(bytes)
        case .string, .accessibility: return text.map(KeychainValue.string)
        case .number, .synchronizable:
            guard let text else { return nil }
            switch text {
            case "true": return .number(1)
            case "false": return .number(0)
            default: return Int64(text).flatMap { attribute.range.contains($0) ? .number($0) : nil }
            }
        case .date:
            return text.flatMap(parseDate).flatMap { DateRange.contains($0) ? .date($0) : nil }
        }
    }

    /// ISO 8601 UTC with milliseconds: `2026-11-22T11:42:30.895Z`.
    package static func formatDate(_ date: Date) -> String { dateFormatter().string(from: date) }
    package static func parseDate(_ text: String) -> Date? {
        isDateShaped(text) ? dateFormatter().date(from: text) : nil
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction]Z` digit for digit. ICU's parser traps (SIGFPE, the daemon dies) on some
    /// malformed fields, e.g. `2026-1-2T1:42:30.-5757…Z` (found by the xattr fuzz target), so nothing else reaches it.
    private static func isDateShaped(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        let shape = Array("dddd-dd-ddTdd:dd:dd".utf8)
        guard bytes.count >= shape.count + 1, bytes.count <= shape.count + 11, bytes.last == UInt8(ascii: "Z") else {
            return false
        }
        let isDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) }
        for (byte, expected) in zip(bytes, shape)
        where expected == UInt8(ascii: "d") ? !isDigit(byte) : byte != expected { return false }
        let fraction = bytes[shape.count..<bytes.count - 1]
        guard let dot = fraction.first else { return true }
        return dot == UInt8(ascii: ".") && fraction.count >= 2 && fraction.dropFirst().allSatisfy(isDigit)
    }

    private static func dateFormatter() -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter
    }
}
