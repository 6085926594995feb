import Crypto
import Foundation
import KeychainFSEngine
import KeychainFSModel

/// What the fuzz target (fuzz/Harness, target `secretservice`) runs on one input: everything the service
/// reads from outside, with the properties each reader promises. Returns the broken promise, nil if none.
package enum SecretServiceFuzzInputs {
    package static func check(_ data: Data, roundTrip: BusValueRoundTrip?) -> String? {
        // Object paths a client names: an item path parses to a reference that names the same path again.
        let text = String(decoding: data, as: UTF8.self)
        if case .item(let reference)? = ObjectPath.parse(text), ObjectPath.itemPath(reference) != text {
            return "item path \(text) does not round-trip"
        }
        // kSecAttrGeneric, which any program can write: a record that reads back keeps its attributes.
        let found: KeychainDictionary = [
            QueryKey.valuePersistentRef: .data(Data([1])), Attributes.generic.code: .data(ItemMapping.marker + data),
        ]
        if let item = ItemMapping.item(found), item.attributes != ["service": "", "username": ""] {
            let again = ItemMapping.item([
                QueryKey.valuePersistentRef: .data(Data([1])),
                Attributes.generic.code: .data(ItemMapping.record(item.attributes, contentType: item.contentType)),
            ])
            if again?.attributes != item.attributes || again?.contentType != item.contentType {
                return "a record does not survive a rewrite"
            }
        }
        // Values a client sends: argument readers never crash; the codec reads back what it writes.
        var generator = FuzzValues(data)
        let values = generator.values()
        for value in values {
            _ = try? ItemMapping.attributes(value)
            _ = try? CallArguments.secret(value)
        }
        if let roundTrip, case .success(let back)? = roundTrip.readBack(values), back != values {
            return "values do not read back as written: \(values) → \(back)"
        }
        // Secrets: an encrypted value under a fixed key either opens or is InvalidArgs; seal then open is the identity.
        let crypto = SessionCrypto.aes(key: SymmetricKey(data: Data(repeating: 7, count: 16)))
        _ = try? crypto.open(data.dropFirst(min(16, data.count)), parameters: data.prefix(16))
        if let sealed = try? crypto.seal(data), (try? crypto.open(sealed.value, parameters: sealed.parameters)) != data
        {
            return "a sealed secret does not open to itself"
        }
        if data.count <= 128 { _ = try? SessionCrypto.agree(clientPublic: data) }
        return nil
    }
}

/// Builds bounded ``BusValue`` trees from fuzz bytes (a byte picks a type, the next ones its contents).
struct FuzzValues {
    private var bytes: [UInt8]
    private var index = 0
    private var budget = 256

    init(_ data: Data) { bytes = Array(data.prefix(4096)) }

    mutating func values() -> [BusValue] {
        var out: [BusValue] = []
        while index < bytes.count, out.count < 16, let value = next(depth: 0) { out.append(value) }
        return out
    }

    private mutating func byte() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    private mutating func text() -> String {
        let count = Int(byte() ?? 0) % 24
        var scalars = ""
        for _ in 0..<count { scalars.append(Character(UnicodeScalar(UInt8(32 + Int(byte() ?? 65) % 95)))) }
        return scalars
    }

    private mutating func next(depth: Int) -> BusValue? {
        budget -= 1
        guard budget > 0, let kind = byte() else { return nil }
        switch kind % 10 {
        case 0: return .string(text())
        case 1: return .objectPath("/" + text().filter { $0.isLetter || $0.isNumber })
        case 2: return .bool((byte() ?? 0) & 1 == 1)
        case 3: return .uint64(UInt64(byte() ?? 0) << 32 | UInt64(byte() ?? 0))
        case 4: return .bytes(Data((0..<Int(byte() ?? 0) % 40).map { _ in byte() ?? 0 }))
        case 5 where depth < 4:
            var entries: [BusValue.DictionaryEntry] = []
            for _ in 0..<Int(byte() ?? 0) % 6 { entries.append(.init(.string(text()), .string(text()))) }
            return .dictionary(key: "s", value: "s", entries)
        case 6 where depth < 4:
            guard let inner = next(depth: depth + 1) else { return nil }
            return .variant(inner)
        case 7 where depth < 4:
            var fields: [BusValue] = []
            for _ in 0..<1 + Int(byte() ?? 0) % 4 { if let field = next(depth: depth + 1) { fields.append(field) } }
            return fields.isEmpty ? nil : .structure(fields)
        case 8 where depth < 4:
            return .array(element: "o", (0..<Int(byte() ?? 0) % 5).map { _ in .objectPath("/o" + String(byte() ?? 0)) })
        default: return .int32(Int32(bitPattern: UInt32(byte() ?? 0)))
        }
    }
}
