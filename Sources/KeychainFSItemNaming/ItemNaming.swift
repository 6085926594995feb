import Foundation
import KeychainFSModel

/// Item names ↔ attributes, driven by the schema (docs/spec.md §4 "Layout"): `<class>/<group>/<item>` where
/// group and item are the class's two naming attributes, and the item's other uniqueness attributes
/// follow as `;code=value` qualifiers, alphabetically, when not at their defaults.
///
/// Values are written as text, data attributes as lowercase hex, enumerations with a short name by
/// it (`private`), numbers in decimal, dates in ISO 8601. Attributes that describe the value itself
/// (a key's type and size, a certificate's issuer) are named only when two items would otherwise share
/// a name.
package struct ItemNaming: Sendable {
    package let schema: ItemClassSchema
    /// The mount's default access group: it never appears as a qualifier.
    package let defaultGroup: String

    /// Longest name a Linux directory entry can have.
    package static let maxNameBytes = 255
    /// Suffix marker of a shortened name: never produced by ``NameEscaping`` (a bare `%` is followed by hex).
    package static let shortenedMarker = "%~"

    /// Primary-key attributes that can appear as qualifiers: all but the naming ones and those the keychain
    /// sets, alphabetically.
    private let candidates: [AttributeDescriptor]
    /// Qualifiers every name carries when not at their defaults.
    package let qualifiers: [AttributeDescriptor]
    /// Qualifiers added only to tell apart items that would share a name.
    package let disambiguators: [AttributeDescriptor]

    package init(schema: ItemClassSchema, defaultGroup: String) {
        self.schema = schema
        self.defaultGroup = defaultGroup
        let parts = Self.partsByClass[schema.code] ?? QualifierParts(candidates: [])
        candidates = parts.candidates
        qualifiers = parts.qualifiers
        disambiguators = parts.disambiguators
    }

    /// A class's qualifier attributes, sorted into their two kinds.
    private struct QualifierParts {
        let candidates: [AttributeDescriptor]
        let qualifiers: [AttributeDescriptor]
        let disambiguators: [AttributeDescriptor]

        init(candidates: [AttributeDescriptor]) {
            self.candidates = candidates
            qualifiers = candidates.filter { !$0.flags.contains(.describesValue) }
            disambiguators = candidates.filter { $0.flags.contains(.describesValue) }
        }
    }

    /// Worked out once per class: a naming is made for every path resolved (sorting them per naming was a
    /// twentieth of a lookup of a new name).
    private static let partsByClass: [String: QualifierParts] = Dictionary(
        uniqueKeysWithValues: Schema.classes.map { schema in
            (
                schema.code,
                QualifierParts(
                    candidates: schema.primaryKey
                        .filter {
                            $0 != schema.namingAttributes.group && $0 != schema.namingAttributes.item
                                && !$0.flags.contains(.systemManaged)
                        }
                        .sorted { $0.code < $1.code })
            )
        })

    // MARK: Attributes → names

    package func groupName(_ attributes: [String: KeychainValue]) -> String {
        let attribute = schema.namingAttributes.group
        return Self.shortened(
            NameEscaping.escape(bytes(attributes[attribute.code] ?? attribute.defaultValue, attribute)))
    }

    /// The attributes an item's names are made of (its naming attribute and the qualifier candidates):
    /// enough to name it again, disambiguated or not, without keeping the rest of its attributes.
    package func nameAttributes(_ attributes: [String: KeychainValue]) -> [String: KeychainValue] {
        let item = schema.namingAttributes.item.code
        var kept: [String: KeychainValue] = [:]
        kept[item] = attributes[item]
        // Qualifiers at their defaults are never part of a name.
        for qualifier in candidates {
            if let value = attributes[qualifier.code], value != defaultValue(qualifier) { kept[qualifier.code] = value }
        }
        return kept
    }

    /// The item's name; with `disambiguated`, the value-describing qualifiers too.
    package func itemName(_ attributes: [String: KeychainValue], disambiguated: Bool = false) -> String {
        let attribute = schema.namingAttributes.item
        var name = NameEscaping.escape(bytes(attributes[attribute.code] ?? attribute.defaultValue, attribute))
        for qualifier in disambiguated ? candidates : qualifiers {
            guard let value = attributes[qualifier.code], value != defaultValue(qualifier) else { continue }
            name += ";\(qualifier.code)=" + NameEscaping.escape(bytes(value, qualifier))
        }
        return Self.shortened(name)
    }

    // MARK: Names → attributes

    /// The naming attribute's value for a group directory name; nil if the name is not canonical.
    package func parseGroup(_ name: [UInt8]) -> KeychainValue? {
        NameEscaping.unescape(name).flatMap { value($0, as: schema.namingAttributes.group) }
    }

    /// The primary key (minus the group) named by an item directory name: every absent qualifier at its
    /// default, value-describing qualifiers only if written; nil if the name is not canonical.
    package func parseItem(_ name: [UInt8]) -> [String: KeychainValue]? {
        let parts = name.split(separator: 0x3B, omittingEmptySubsequences: false)  // ';'
        let itemAttribute = schema.namingAttributes.item
        guard let item = NameEscaping.unescape(Array(parts[0])).flatMap({ value($0, as: itemAttribute) }) else {
            return nil
        }
        var attributes: [String: KeychainValue] = [itemAttribute.code: item]
        var previous = ""
        for part in parts.dropFirst() {
            guard let equals = part.firstIndex(of: 0x3D),
                let code = String(validating: part[part.startIndex..<equals], as: UTF8.self),
                code > previous, let attribute = candidates.first(where: { $0.code == code }),
                let raw = NameEscaping.unescape(Array(part[part.index(after: equals)...])),
                let parsed = value(raw, as: attribute), parsed != defaultValue(attribute)
            else { return nil }
            attributes[code] = parsed
            previous = code
        }
        for attribute in qualifiers where attributes[attribute.code] == nil {
            attributes[attribute.code] = defaultValue(attribute)
        }
        return attributes
    }

    /// What a parsed name says explicitly: the item attribute and the qualifiers not at their defaults
    /// (what mkdir adds and mv sets; the defaults are left to the keychain).
    package func explicitAttributes(_ key: [String: KeychainValue]) -> [String: KeychainValue] {
        var explicit = key.filter { code, value in schema.attribute(code).map { value != defaultValue($0) } ?? true }
        explicit[schema.namingAttributes.item.code] = key[schema.namingAttributes.item.code]
        return explicit
    }

    /// Whether a name was shortened and can only be found by listing its directory.
    package static func isShortened(_ name: [UInt8]) -> Bool {
        name.count == maxNameBytes && String(decoding: name, as: UTF8.self).contains(shortenedMarker)
    }

    // MARK: Values

    package func defaultValue(_ attribute: AttributeDescriptor) -> KeychainValue? {
        attribute == Attributes.accessGroup ? .string(defaultGroup) : attribute.defaultValue
    }

    /// The bytes a value is named by.
    private func bytes(_ value: KeychainValue?, _ attribute: AttributeDescriptor) -> [UInt8] {
        guard let value else { return [] }
        if let short = attribute.enumeration?.pathName(of: value) { return Array(short.utf8) }
        switch value {
        case .string(let s): return Array(s.utf8)
        case .data(let d):
            return attribute.kind == .data ? Array(d.map { String(format: "%02x", $0) }.joined().utf8) : Array(d)
        case .number(let n): return Array(String(n).utf8)
        case .bool(let b): return b ? [0x31] : [0x30]
        case .date(let d): return Array(Self.dateName(d).utf8)
        case .array, .dictionary: return []
        }
    }

    /// The value named by `bytes`, or nil unless they are its canonical spelling.
    private func value(_ bytes: [UInt8], as attribute: AttributeDescriptor) -> KeychainValue? {
        let parsed: KeychainValue?
        if let raw = attribute.enumeration?.raw(pathName: String(decoding: bytes, as: UTF8.self)) {
            parsed = raw
        } else if attribute.enumeration?.isClosed == true {
            return nil  // `keys/tag/bogus`: only public, private or symmetric
        } else {
            switch attribute.kind {
            case .data: parsed = Self.hex(bytes).map(KeychainValue.data)
            case .date:
                parsed = String(validating: bytes, as: UTF8.self).flatMap { text in
                    XattrFormat.parseDate(text) ?? Double(text).map(Date.init(timeIntervalSinceReferenceDate:))
                }.map(KeychainValue.date)
            case .blob:
                parsed = String(validating: bytes, as: UTF8.self).map(KeychainValue.string) ?? .data(Data(bytes))
            default: parsed = String(validating: bytes, as: UTF8.self).flatMap { try? attribute.coerce(.string($0)) }
            }
        }
        guard let parsed, self.bytes(parsed, attribute) == bytes else { return nil }
        if case .number(let n) = parsed, !attribute.range.contains(n) { return nil }
        if case .date(let d) = parsed, !DateRange.contains(d) { return nil }
        return parsed
    }

    /// A date in ISO 8601 with milliseconds when that spelling is exact; otherwise its seconds since
    /// 2001-01-01 (Swift's shortest round-trip decimal), so every listed name resolves to its item.
    package static func dateName(_ date: Date) -> String {
        let iso = XattrFormat.formatDate(date)
        return XattrFormat.parseDate(iso) == date ? iso : String(date.timeIntervalSinceReferenceDate)
    }

    private static func hex(_ bytes: [UInt8]) -> Data? {
        guard bytes.count % 2 == 0 else { return nil }
        var out = Data()
        var index = 0
        while index < bytes.count {
            guard let byte = UInt8(String(decoding: bytes[index..<index + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            out.append(byte)
            index += 2
        }
        return out
    }

    /// Names longer than NAME_MAX keep a prefix and get a hash of the full name (found again by listing).
    package static func shortened(_ name: String) -> String {
        guard name.utf8.count > maxNameBytes else { return name }
        let suffix = shortenedMarker + String(format: "%016llx", StableHash.fnv1a64(name.utf8))
        var prefix = Substring(name)
        while prefix.utf8.count > maxNameBytes - suffix.utf8.count { prefix = prefix.dropLast() }
        let padding = String(repeating: "_", count: maxNameBytes - suffix.utf8.count - prefix.utf8.count)
        return prefix + padding + suffix
    }
}
