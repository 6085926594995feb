import Foundation
import KeychainFSModel

/// An item named for people: audit lines and prompts. `<class>/<group>/<item>`, the class's two naming
/// attributes escaped as the mount escapes names (``NameEscaping``), so a title reads like the item's path
/// in the mount; `*` stands for a naming attribute a query leaves open. Never a value or a secret.
package enum ItemTitle {
    /// The title of the item (or query) `attributes` of class `classCode`; nil for an unknown class.
    package static func of(classCode: String, _ attributes: [String: KeychainValue]) -> String? {
        guard let schema = Schema.schema(for: classCode) else { return nil }
        let names = [schema.namingAttributes.group, schema.namingAttributes.item].map { attribute -> String in
            guard let value = attributes[attribute.code] else { return "*" }
            return NameEscaping.escape(bytes(value))
        }
        return ([classCode] + names).joined(separator: "/")
    }

    /// The title of a query dictionary: its class and naming attributes.
    package static func of(query: [String: KeychainValue]) -> String? {
        guard case .string(let code)? = query[QueryKey.class] else { return nil }
        return of(classCode: code, query)
    }

    /// Text as is; data as lowercase hex (the mount's spelling of a data name); numbers in decimal.
    private static func bytes(_ value: KeychainValue) -> [UInt8] {
        switch value {
        case .string(let text): Array(text.utf8)
        case .data(let data): Array(data.map { String(format: "%02x", $0) }.joined().utf8)
        case .number(let number): Array(String(number).utf8)
        case .bool(let flag): Array((flag ? "1" : "0").utf8)
        case .date, .array, .dictionary: Array("?".utf8)
        }
    }
}
