import Foundation
import SodiumCrypto

/// Computes the lookup columns: keyed BLAKE2b of each attribute's bytes under the device-bound
/// index key, so that equality search and UNIQUE work in SQL while no attribute is stored in plaintext.
struct LookupHasher: Sendable {
    let indexKey: GuardedKey

    /// Bytes an attribute value is matched on. Strings and data with the same bytes are equal,
    /// as Apple's SHA-1 columns make them (reference §3.2).
    static func matchBytes(_ value: KeychainValue) -> Data {
        switch value {
        case .string(let s): Data(s.utf8)
        case .data(let d): d
        case .number(let n): Data(String(n).utf8)
        case .bool(let b): Data((b ? "1" : "0").utf8)
        case .date(let d): withUnsafeBytes(of: d.timeIntervalSinceReferenceDate.bitPattern.bigEndian) { Data($0) }
        case .array, .dictionary: ValueCodec.encode(value)
        }
    }

    func hash(_ code: String, _ value: KeychainValue) -> Data {
        KeyDerivation.keyedHash([Data(code.utf8), Self.matchBytes(value)], key: indexKey)
    }

    /// The lookup column of every attribute of `schema` for an item: the value's hash, the default's
    /// hash for absent primary-key attributes (never NULL, reference §2.1), NULL for other absent ones.
    /// In the schema's attribute order.
    func columns(for attributes: [String: KeychainValue], schema: ItemClassSchema) -> [Data?] {
        schema.attributes.map { attribute in
            (attributes[attribute.code] ?? (attribute.isPrimaryKey ? attribute.defaultValue : nil)).map { hash(attribute.code, $0) }
        }
    }
}
