import Foundation

/// Compact, self-describing binary encoding of ``KeychainValue``: a tag byte, then a big-endian
/// length or payload. Used for encrypted item metadata and for control-socket frames.
/// Decoding checks every length and nesting depth, so hostile input fails cleanly.
public enum ValueCodec {
    /// Decoding failed: the bytes are not a valid encoding.
    public struct MalformedInput: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { "malformed encoded value: \(reason)" }
        package init(reason: String) { self.reason = reason }
    }

    private enum Tag: UInt8 { case string = 1, data, number, bool, date, array, dictionary }
    private static let maxDepth = 16

    /// Encodes `value`. Built in an array and copied once: appending to `Data` piece by piece was a tenth
    /// of an update (measured).
    public static func encode(_ value: KeychainValue) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        append(value, to: &out)
        return Data(out)
    }

    /// Decodes bytes produced by ``encode(_:)``; fails on trailing bytes, bad tags or lengths.
    public static func decode(_ data: Data) throws(MalformedInput) -> KeychainValue {
        var reader = Reader(bytes: [UInt8](data))
        let value = try reader.value(depth: 0)
        guard reader.offset == reader.bytes.count else { throw MalformedInput(reason: "trailing bytes") }
        return value
    }

    private static func append(_ value: KeychainValue, to out: inout [UInt8]) {
        switch value {
        case .string(let s): out.append(Tag.string.rawValue); appendBlob(s, to: &out)
        case .data(let d):
            out.append(Tag.data.rawValue); appendUInt32(d.count, to: &out)
            d.withUnsafeBytes { out.append(contentsOf: $0) }
        case .number(let n): out.append(Tag.number.rawValue); appendUInt64(UInt64(bitPattern: n), to: &out)
        case .bool(let b): out.append(Tag.bool.rawValue); out.append(b ? 1 : 0)
        case .date(let d):
            out.append(Tag.date.rawValue); appendUInt64(d.timeIntervalSinceReferenceDate.bitPattern, to: &out)
        case .array(let items):
            out.append(Tag.array.rawValue); appendUInt32(items.count, to: &out)
            for item in items { append(item, to: &out) }
        case .dictionary(let dict):
            out.append(Tag.dictionary.rawValue); appendUInt32(dict.count, to: &out)
            for key in dict.keys.sorted() {
                appendBlob(key, to: &out)
                append(dict[key]!, to: &out)
            }
        }
    }

    private static func appendBlob(_ s: String, to out: inout [UInt8]) {
        appendUInt32(s.utf8.count, to: &out)
        out.append(contentsOf: s.utf8)
    }
    private static func appendUInt32(_ n: Int, to out: inout [UInt8]) {
        withUnsafeBytes(of: UInt32(n).bigEndian) { out.append(contentsOf: $0) }
    }
    private static func appendUInt64(_ n: UInt64, to out: inout [UInt8]) {
        withUnsafeBytes(of: n.bigEndian) { out.append(contentsOf: $0) }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func take(_ n: Int) throws(MalformedInput) -> ArraySlice<UInt8> {
            guard n >= 0, bytes.count - offset >= n else { throw MalformedInput(reason: "truncated") }
            defer { offset += n }
            return bytes[offset..<offset + n]
        }
        mutating func uint(_ width: Int) throws(MalformedInput) -> UInt64 {
            try take(width).reduce(0) { $0 << 8 | UInt64($1) }
        }
        mutating func blob() throws(MalformedInput) -> Data { Data(try take(Int(try uint(4)))) }
        /// Straight from the bytes, not through a `Data` copy (a listing decodes a dozen strings an item).
        /// ASCII, which most are, needs no validation: the validating initializer is generic and not
        /// specialized here, and was an eighth of a listing's time in metadata lookups alone.
        mutating func string() throws(MalformedInput) -> String {
            let decoded = try take(Int(try uint(4))).withUnsafeBufferPointer { bytes in
                bytes.allSatisfy { $0 < 0x80 }
                    ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
            }
            guard let s = decoded else {
                throw MalformedInput(reason: "invalid UTF-8")
            }
            return s
        }

        mutating func value(depth: Int) throws(MalformedInput) -> KeychainValue {
            guard depth < ValueCodec.maxDepth else { throw MalformedInput(reason: "nested too deeply") }
            guard let tag = Tag(rawValue: try take(1).first!) else { throw MalformedInput(reason: "unknown tag") }
            switch tag {
            case .string: return .string(try string())
            case .data: return .data(try blob())
            case .number: return .number(Int64(bitPattern: try uint(8)))
            case .bool:
                switch try take(1).first! {
                case 0: return .bool(false)
                case 1: return .bool(true)
                default: throw MalformedInput(reason: "bad boolean")
                }
            case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try uint(8))))
            case .array:
                let count = Int(try uint(4))
                guard count <= bytes.count - offset else { throw MalformedInput(reason: "array count exceeds input") }
                var items: [KeychainValue] = []
                items.reserveCapacity(count)
                for _ in 0..<count { items.append(try value(depth: depth + 1)) }
                return .array(items)
            case .dictionary:
                let count = Int(try uint(4))
                guard count <= bytes.count - offset else {
                    throw MalformedInput(reason: "dictionary count exceeds input")
                }
                var dict: [String: KeychainValue] = [:]
                dict.reserveCapacity(count)  // growing it was a twentieth of a listing's time
                for _ in 0..<count {
                    let key = try string()
                    dict[key] = try value(depth: depth + 1)
                }
                return .dictionary(dict)
            }
        }
    }
}
