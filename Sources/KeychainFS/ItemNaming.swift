import Foundation
import KeychainEngine

/// Item names ↔ attributes, driven by the schema (SPEC §4 "Layout"): `<class>/<group>/<item>` where
/// group and item are the class's two naming attributes, and the item's other uniqueness attributes
/// follow as `;code=value` qualifiers, alphabetically, when not at their defaults.
struct ItemNaming: Sendable {
    let schema: ItemClassSchema
    /// The mount's default access group: it never appears as a qualifier.
    let defaultGroup: String

    /// Longest name a Linux directory entry can have.
    static let maxNameBytes = 255
    /// Suffix marker of a shortened name: never produced by ``NameEscaping`` (a bare `%` is followed by hex).
    static let shortenedMarker = "%~"

    /// Primary-key attributes shown as qualifiers: all but the naming ones and those the keychain sets itself.
    var qualifiers: [AttributeDescriptor] {
        schema.primaryKey
            .filter { $0 != schema.namingAttributes.group && $0 != schema.namingAttributes.item && !$0.flags.contains(.systemManaged) }
            .sorted { $0.code < $1.code }
    }

    // MARK: Attributes → names

    func groupName(_ attributes: [String: KeychainValue]) -> String {
        Self.shortened(NameEscaping.escape(bytes(attributes[schema.namingAttributes.group.code] ?? schema.namingAttributes.group.defaultValue)))
    }

    func itemName(_ attributes: [String: KeychainValue]) -> String {
        var name = NameEscaping.escape(bytes(attributes[schema.namingAttributes.item.code] ?? schema.namingAttributes.item.defaultValue))
        for attribute in qualifiers {
            guard let value = attributes[attribute.code], value != defaultValue(attribute) else { continue }
            name += ";\(attribute.code)=" + NameEscaping.escape(bytes(value))
        }
        return Self.shortened(name)
    }

    // MARK: Names → attributes

    /// The naming attribute's value for a group directory name; nil if the name is not canonical.
    func parseGroup(_ name: [UInt8]) -> KeychainValue? {
        NameEscaping.unescape(name).map { value($0, as: schema.namingAttributes.group) }
    }

    /// The full primary key (minus the group) named by an item directory name, every absent qualifier
    /// at its default; nil if the name is malformed.
    func parseItem(_ name: [UInt8]) -> [String: KeychainValue]? {
        let parts = name.split(separator: 0x3B, omittingEmptySubsequences: false)  // ';'
        guard let item = NameEscaping.unescape(Array(parts[0])) else { return nil }
        var attributes: [String: KeychainValue] = [schema.namingAttributes.item.code: value(item, as: schema.namingAttributes.item)]
        var previous = ""
        for part in parts.dropFirst() {
            guard let equals = part.firstIndex(of: 0x3D), let code = String(validating: part[part.startIndex..<equals], as: UTF8.self),
                  code > previous, let attribute = qualifiers.first(where: { $0.code == code }),
                  let raw = NameEscaping.unescape(Array(part[part.index(after: equals)...])),
                  let parsed = qualifierValue(raw, as: attribute), parsed != defaultValue(attribute)
            else { return nil }
            attributes[code] = parsed
            previous = code
        }
        for attribute in qualifiers where attributes[attribute.code] == nil { attributes[attribute.code] = defaultValue(attribute) }
        return attributes
    }

    /// Whether a name was shortened and can only be found by listing its directory.
    static func isShortened(_ name: [UInt8]) -> Bool {
        name.count == maxNameBytes && String(decoding: name, as: UTF8.self).contains(shortenedMarker)
    }

    // MARK: Values

    private func defaultValue(_ attribute: AttributeDescriptor) -> KeychainValue? {
        attribute == Attributes.accessGroup ? .string(defaultGroup) : attribute.defaultValue
    }

    /// The bytes a value is named by: UTF-8 for strings, raw data, decimal numbers.
    private func bytes(_ value: KeychainValue?) -> [UInt8] {
        switch value {
        case .string(let s): Array(s.utf8)
        case .data(let d): Array(d)
        case .number(let n): Array(String(n).utf8)
        case .bool(let b): b ? [0x31] : [0x30]
        default: []
        }
    }

    /// A naming attribute's value from name bytes: text when it is UTF-8, data otherwise.
    private func value(_ bytes: [UInt8], as attribute: AttributeDescriptor) -> KeychainValue {
        if attribute.kind == .data { return .data(Data(bytes)) }
        if let s = String(validating: bytes, as: UTF8.self) { return .string(s) }
        return .data(Data(bytes))
    }

    private func qualifierValue(_ bytes: [UInt8], as attribute: AttributeDescriptor) -> KeychainValue? {
        switch attribute.kind {
        case .number, .synchronizable:
            guard let s = String(validating: bytes, as: UTF8.self), let n = Int64(s), String(n) == s else { return nil }
            return attribute.kind == .synchronizable && n != 0 && n != 1 ? nil : .number(n)
        case .string, .accessibility:
            return String(validating: bytes, as: UTF8.self).map(KeychainValue.string)
        default:
            return value(bytes, as: attribute)
        }
    }

    /// Names longer than NAME_MAX keep a prefix and get a hash of the full name (found again by listing).
    static func shortened(_ name: String) -> String {
        guard name.utf8.count > maxNameBytes else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let suffix = shortenedMarker + String(format: "%016llx", hash)
        var prefix = Substring(name)
        while prefix.utf8.count > maxNameBytes - suffix.utf8.count { prefix = prefix.dropLast() }
        let padding = String(repeating: "_", count: maxNameBytes - suffix.utf8.count - prefix.utf8.count)
        return prefix + padding + suffix
    }
}
