/// Reversible names (docs/spec.md §4 "Layout"): `%`, `/`, `;`, NUL and bytes that are not printable UTF-8
/// become `%XX`; `.` and `..` become `%2E` and `%2E%2E`; the empty string is `%`.
/// Only the canonical spelling of a name is accepted, so each item has exactly one path.
package enum NameEscaping {
    package static func escape(_ bytes: [UInt8]) -> String {
        if bytes.isEmpty { return "%" }
        if bytes == [0x2E] { return "%2E" }
        if bytes == [0x2E, 0x2E] { return "%2E%2E" }
        // Printable ASCII but `%`, `/` and `;` stands for itself (most names): no scalar-by-scalar walk.
        if bytes.allSatisfy({ (0x20...0x7E).contains($0) && $0 != 0x25 && $0 != 0x2F && $0 != 0x3B }) {
            return String(decoding: bytes, as: UTF8.self)
        }
        return escapeScalars(bytes)
    }

    /// Escapes scalar by scalar; bytes that do not start a valid UTF-8 sequence are escaped one by one.
    private static func escapeScalars(_ bytes: [UInt8]) -> String {
        var out = ""
        var index = 0
        while index < bytes.count {
            let length = sequenceLength(bytes[index])
            if length > 0, index + length <= bytes.count,
                let s = String(validating: bytes[index..<index + length], as: UTF8.self),
                let scalar = s.unicodeScalars.first
            {
                if isPlain(scalar) {
                    out.unicodeScalars.append(scalar)
                } else {
                    bytes[index..<index + length].forEach { out += percent($0) }
                }
                index += length
            } else {
                out += percent(bytes[index])
                index += 1
            }
        }
        return out
    }

    private static func sequenceLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0x00...0x7F: 1
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 0
        }
    }

    private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "%" || scalar == "/" || scalar == ";" { return false }
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator: return false
        default: return true
        }
    }

    private static func percent(_ byte: UInt8) -> String {
        let hex = Array("0123456789ABCDEF")
        return "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
    }

    /// The bytes a name stands for, or nil if it is not the canonical escaping of anything.
    package static func unescape(_ name: [UInt8]) -> [UInt8]? {
        if name == [0x25] { return [] }
        var out: [UInt8] = []
        var index = 0
        while index < name.count {
            if name[index] == 0x25 {
                guard index + 2 < name.count, let hi = hexValue(name[index + 1]), let lo = hexValue(name[index + 2])
                else { return nil }
                out.append(hi << 4 | lo)
                index += 3
            } else {
                out.append(name[index])
                index += 1
            }
        }
        return Array(escape(out).utf8) == name ? out : nil
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        default: nil
        }
    }
}
