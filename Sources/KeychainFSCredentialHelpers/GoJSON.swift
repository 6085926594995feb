import Foundation

/// JSON as Go's encoding/json writes and reads Docker's credential messages: the byte-exact output of
/// `json.NewEncoder(w).Encode` (HTML-safe escapes, sorted map keys, a newline), and struct decoding
/// that matches field names case-insensitively.
package enum GoJSON {
    /// `{"k":"v",…}\n` with the keys in the given order.
    package static func object(_ fields: [(String, Data)]) -> Data {
        var out = Data("{".utf8)
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += string(Data(key.utf8)) + Data(":".utf8) + string(value)
        }
        return out + Data("}\n".utf8)
    }

    /// A map, keys in byte order as Go sorts them.
    package static func map(_ entries: [String: String]) -> Data {
        object(
            entries.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }.map {
                ($0.key, Data($0.value.utf8))
            })
    }

    /// A JSON string of raw bytes: `"`, `\` and control characters escaped, `<`, `>`, `&`, U+2028 and
    /// U+2029 as `\uXXXX`, and each byte that is not UTF-8 as `\ufffd`, as Go does.
    static func string(_ bytes: Data) -> Data {
        var out = Data("\"".utf8)
        var iterator = bytes.makeIterator(), decoder = UTF8()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                switch scalar.value {
                case 0x22: out += Data("\\\"".utf8)
                case 0x5C: out += Data("\\\\".utf8)
                case 0x0A: out += Data("\\n".utf8)
                case 0x0D: out += Data("\\r".utf8)
                case 0x09: out += Data("\\t".utf8)
                case 0..<0x20, 0x3C, 0x3E, 0x26, 0x2028, 0x2029:
                    out += Data(String(format: "\\u%04x", scalar.value).utf8)
                default: out += Data(String(scalar).utf8)
                }
            case .error: out += Data("\\ufffd".utf8)
            case .emptyInput: break loop
            }
        }
        return out + Data("\"".utf8)
    }

    /// The string fields of a JSON object, each found by exact name or else case-insensitively (null
    /// leaves a field empty, unknown keys are ignored). The messages are Go's.
    package static func decodeStrings(_ input: Data, fields: [String], type: String) throws(GoJSONError) -> [String:
        String]
    {
        let parsed: Any
        do { parsed = try JSONSerialization.jsonObject(with: input) } catch {
            throw GoJSONError(
                input.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D } ? "EOF" : "invalid JSON")
        }
        guard let object = parsed as? [String: Any] else {
            throw GoJSONError("json: cannot unmarshal \(kind(parsed)) into Go value of type \(type)")
        }
        var result: [String: String] = [:]
        for field in fields {
            let key = object[field] != nil ? field : object.keys.first { $0.lowercased() == field.lowercased() }
            guard let key, let value = object[key], !(value is NSNull) else { continue }
            guard let text = value as? String else {
                throw GoJSONError(
                    "json: cannot unmarshal \(kind(value)) into Go struct field \(type.split(separator: ".").last ?? "").\(field) of type string"
                )
            }
            result[field] = text
        }
        return result
    }

    private static func kind(_ value: Any) -> String {
        switch value {
        case is String: "string"
        case is [Any]: "array"
        case is [String: Any]: "object"
        case let number as NSNumber
        where String(cString: number.objCType) == "c" || String(cString: number.objCType) == "B": "bool"
        default: "number"
        }
    }
}

/// A message Docker's helper protocol could not decode.
package struct GoJSONError: Error, CustomStringConvertible {
    /// The message, which quotes no secret.
    package let description: String
    /// An error with this message.
    package init(_ description: String) { self.description = description }
}
