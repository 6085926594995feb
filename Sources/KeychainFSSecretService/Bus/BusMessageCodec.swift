import KeychainFSCSystemd
import Foundation

/// Reads a message's arguments into ``BusValue``s and appends ``BusValue``s to a message, through sd-bus's
/// typed readers and writers (sd-bus has checked the bytes against the signature already). A message may
/// hold at most ``maxValues`` values, so a huge one costs bounded work before it is refused.
package enum BusMessageCodec {
    static let maxValues = 200_000

    package struct Malformed: Error, Equatable { package var message: String }

    /// Every argument of `message`, from its start.
    static func arguments(of message: OpaquePointer) throws(Malformed) -> [BusValue] {
        var budget = maxValues
        var values: [BusValue] = []
        while let value = try next(message, &budget) { values.append(value) }
        return values
    }

    /// The next value at the message's read position, nil at the end of the current container.
    private static func next(_ m: OpaquePointer, _ budget: inout Int) throws(Malformed) -> BusValue? {
        var type: CChar = 0
        var contentsPointer: UnsafePointer<CChar>?
        let peeked = sd_bus_message_peek_type(m, &type, &contentsPointer)
        if peeked < 0 { throw Malformed(message: "unreadable message (\(String(cString: strerror(-peeked))))") }
        if peeked == 0 { return nil }
        budget -= 1
        if budget < 0 { throw Malformed(message: "the message holds more than \(maxValues) values") }
        let contents = contentsPointer.map { String(cString: $0) } ?? ""
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "a"):
            if contents == "y" {
                var pointer: UnsafeRawPointer?
                var size = 0
                try check(sd_bus_message_read_array(m, CChar(UInt8(ascii: "y")), &pointer, &size))
                return .bytes(pointer.map { Data(bytes: $0, count: size) } ?? Data())
            }
            try check(sd_bus_message_enter_container(m, type, contents))
            if contents.hasPrefix("{") {
                let inner = String(contents.dropFirst().dropLast())
                let keySignature = String(inner.prefix(1)), valueSignature = String(inner.dropFirst())
                var entries: [BusValue.DictionaryEntry] = []
                while true {
                    let entered = sd_bus_message_enter_container(m, CChar(UInt8(ascii: "e")), inner)
                    if entered == 0 { break }
                    try check(entered)
                    guard let key = try next(m, &budget), let value = try next(m, &budget) else {
                        throw Malformed(message: "a dictionary entry without a value")
                    }
                    try check(sd_bus_message_exit_container(m))
                    entries.append(.init(key, value))
                }
                try check(sd_bus_message_exit_container(m))
                return .dictionary(key: keySignature, value: valueSignature, entries)
            }
            var items: [BusValue] = []
            while let item = try next(m, &budget) { items.append(item) }
            try check(sd_bus_message_exit_container(m))
            return .array(element: contents, items)
        case UInt8(ascii: "v"), UInt8(ascii: "r"):
            try check(sd_bus_message_enter_container(m, type, contents))
            var items: [BusValue] = []
            while let item = try next(m, &budget) { items.append(item) }
            try check(sd_bus_message_exit_container(m))
            if UInt8(bitPattern: type) == UInt8(ascii: "r") { return .structure(items) }
            guard items.count == 1 else { throw Malformed(message: "a variant holds \(items.count) values") }
            return .variant(items[0])
        default:
            return try basic(m, type)
        }
    }

    private static func basic(_ m: OpaquePointer, _ type: CChar) throws(Malformed) -> BusValue {
        func read<T>(_ initial: T) throws(Malformed) -> T {
            var value = initial
            try check(withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(m, type, $0) })
            return value
        }
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "y"): return .byte(try read(UInt8(0)))
        case UInt8(ascii: "b"): return .bool(try read(Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int32(Int32(try read(Int16(0))))
        case UInt8(ascii: "q"): return .uint32(UInt32(try read(UInt16(0))))
        case UInt8(ascii: "i"): return .int32(try read(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try read(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try read(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try read(UInt64(0)))
        case UInt8(ascii: "d"): return .double(try read(Double(0)))
        case UInt8(ascii: "h"): _ = try read(Int32(0)); throw Malformed(message: "file descriptors are not accepted")
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            let pointer = try read(UnsafePointer<CChar>?.none)
            let text = pointer.map { String(cString: $0) } ?? ""
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "o"): return .objectPath(text)
            case UInt8(ascii: "g"): return .signature(text)
            default: return .string(text)
            }
        default:
            throw Malformed(message: "unknown D-Bus type '\(Character(UnicodeScalar(UInt8(bitPattern: type))))'")
        }
    }

    /// Appends `values` to `message`.
    static func append(_ values: [BusValue], to message: OpaquePointer) throws(Malformed) {
        for value in values { try append(value, to: message) }
    }

    private static func append(_ value: BusValue, to m: OpaquePointer) throws(Malformed) {
        func basic<T>(_ type: Character, _ v: T) throws(Malformed) {
            var copy = v
            try check(withUnsafePointer(to: &copy) { sd_bus_message_append_basic(m, CChar(type.asciiValue!), $0) })
        }
        func container(_ type: Character, _ contents: String, _ body: () throws(Malformed) -> Void) throws(Malformed) {
            try check(sd_bus_message_open_container(m, CChar(type.asciiValue!), contents))
            try body()
            try check(sd_bus_message_close_container(m))
        }
        switch value {
        case .byte(let v): try basic("y", v)
        case .bool(let v): try basic("b", Int32(v ? 1 : 0))
        case .int32(let v): try basic("i", v)
        case .uint32(let v): try basic("u", v)
        case .int64(let v): try basic("x", v)
        case .uint64(let v): try basic("t", v)
        case .double(let v): try basic("d", v)
        case .string(let s), .objectPath(let s), .signature(let s):
            let type: Character =
                if case .objectPath = value { "o" } else if case .signature = value { "g" } else { "s" }
            try check(s.withCString { sd_bus_message_append_basic(m, CChar(type.asciiValue!), $0) })
        case .bytes(let data):
            try check(
                data.withUnsafeBytes {
                    sd_bus_message_append_array(m, CChar(UInt8(ascii: "y")), $0.baseAddress, $0.count)
                })
        case .array(let element, let items):
            try container("a", element) { () throws(Malformed) in for item in items { try append(item, to: m) } }
        case .dictionary(let key, let valueType, let entries):
            try container("a", "{" + key + valueType + "}") { () throws(Malformed) in
                for entry in entries {
                    try container("e", key + valueType) { () throws(Malformed) in
                        try append(entry.key, to: m)
                        try append(entry.value, to: m)
                    }
                }
            }
        case .structure(let fields):
            try container("r", fields.map(\.signature).joined()) { () throws(Malformed) in
                for field in fields { try append(field, to: m) }
            }
        case .variant(let inner):
            try container("v", inner.signature) { () throws(Malformed) in try append(inner, to: m) }
        }
    }

    private static func check(_ result: Int32) throws(Malformed) {
        if result < 0 { throw Malformed(message: String(cString: strerror(-result))) }
    }
}
