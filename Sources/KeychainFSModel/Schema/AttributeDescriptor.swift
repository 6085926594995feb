/// How an attribute's values are typed and coerced (docs/reference/keychain-semantics.md §3.2).
public enum AttributeKind: Sendable {
    /// String, data or number accepted and returned as given; matched on bytes (acct, svce, labl, …).
    case blob
    /// Data; a string becomes its UTF-8 bytes.
    case data
    /// String; data is decoded as UTF-8 (agrp, vwht, tkid, …).
    case string
    /// Integer; booleans become 0/1, integer strings become numbers, other strings are kept.
    case number
    /// Date.
    case date
    /// `pdmn`: one of the ``Accessibility`` raw values.
    case accessibility
    /// `sync`: 0/1, or kSecAttrSynchronizableAny in queries.
    case synchronizable
}

/// Per-attribute flags, after Apple's schema flags (docs/reference/keychain-semantics.md §2.1).
public struct AttributeFlags: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Part of the class's UNIQUE set (`P`).
    public static let primaryKey = AttributeFlags(rawValue: 1 << 0)
    /// Written into every new item with its default when absent (`N` with `E`/`Z`).
    public static let materialized = AttributeFlags(rawValue: 1 << 1)
    /// Set by the keychain itself: callers' values are overwritten on add (cdat, mdat, musr).
    public static let systemManaged = AttributeFlags(rawValue: 1 << 2)
    /// Not in SecItemAdd's returned attributes (tomb, musr).
    public static let omittedFromAddResult = AttributeFlags(rawValue: 1 << 3)
    /// Silently ignored as a new value in SecItemUpdate (musr).
    public static let ignoredInUpdate = AttributeFlags(rawValue: 1 << 4)
    /// Needs a sharing entitlement to set, and cannot be updated (ggrp).
    public static let sharingGroup = AttributeFlags(rawValue: 1 << 5)
    /// Indexed in SQL for fast lookups (naming attributes, label).
    public static let indexed = AttributeFlags(rawValue: 1 << 6)
    /// Read-only through the filesystem (dates).
    public static let readOnlyInFilesystem = AttributeFlags(rawValue: 1 << 7)
    /// A primary-key attribute that describes the item's value (a certificate's issuer, a key's type and
    /// size): the filesystem names it only when needed to tell two items apart.
    public static let describesValue = AttributeFlags(rawValue: 1 << 8)
    /// Never a search filter (kSecAttrAccessControl, docs/reference/keychain-semantics.md §3.2).
    public static let neverFilters = AttributeFlags(rawValue: 1 << 9)
    /// Shared by nearly every item (access group, sync, …): SQL must not pick an index for it.
    public static let poorlySelective = AttributeFlags(rawValue: 1 << 10)
}

/// One attribute of an item class: the row of the schema table that drives validation, coercion,
/// SQL columns, uniqueness, results and xattr names.
public struct AttributeDescriptor: Sendable, Hashable {
    /// Apple's raw 4-character key (`"acct"`).
    public let code: String
    /// Apple's public constant name (`"kSecAttrAccount"`), also the xattr name after `user.`.
    public let name: String
    public let kind: AttributeKind
    public let flags: AttributeFlags
    /// Value used when the attribute is absent (pk attributes are never NULL, docs/reference/keychain-semantics.md §2.1).
    public let defaultValue: KeychainValue?
    /// Named values shown instead of raw ones (pdmn → kSecAttrAccessible…), if any.
    public let enumeration: Enumeration?
    /// The numbers it takes, on every way in (SecItem calls, the control socket, the CLI, the mount): a
    /// number outside is errSecParam (EINVAL on the mount), never stored wrapped or clamped.
    public let range: NumberRange

    public init(
        _ code: String, _ name: String, _ kind: AttributeKind, _ flags: AttributeFlags = [],
        default defaultValue: KeychainValue? = nil, enumeration: Enumeration? = nil, range: NumberRange = .any
    ) {
        self.code = code
        self.name = name
        self.kind = kind
        self.flags = flags
        self.defaultValue = defaultValue
        self.enumeration = enumeration
        self.range = range
    }

    public var isPrimaryKey: Bool { flags.contains(.primaryKey) }

    public static func == (a: Self, b: Self) -> Bool { a.code == b.code }
    public func hash(into h: inout Hasher) { h.combine(code) }
}

/// What a number attribute means (docs/spec.md §4: booleans are 0/1): a value outside it is refused (errSecParam,
/// EINVAL on the mount) rather than stored wrapped or clamped.
public enum NumberRange: Sendable, CustomStringConvertible {
    case any
    /// kSecAttrIsInvisible, kSecAttrCanSign, …: 0 or 1.
    case boolean
    /// kSecAttrCreator, kSecAttrType: a FourCharCode (UInt32).
    case fourCharCode
    /// kSecAttrPort: 0…65535.
    case port

    public func contains(_ n: Int64) -> Bool {
        switch self {
        case .any: true
        case .boolean: n == 0 || n == 1
        case .fourCharCode: (0...Int64(UInt32.max)).contains(n)
        case .port: (0...Int64(UInt16.max)).contains(n)
        }
    }

    public var description: String {
        switch self {
        case .any: "any number"
        case .boolean: "0 or 1"
        case .fourCharCode: "a four-character code, 0 to \(UInt32.max)"
        case .port: "a port, 0 to \(UInt16.max)"
        }
    }
}

/// A table of named raw values for an enumerated attribute.
public struct Enumeration: Sendable {
    /// (raw value, public constant name, short name used in paths) triples.
    public let cases: [(raw: KeychainValue, name: String, pathName: String?)]

    public init(cases: [(raw: KeychainValue, name: String)]) {
        self.cases = cases.map { ($0.raw, $0.name, nil) }
    }

    public init(cases: [(raw: KeychainValue, name: String, pathName: String?)]) {
        self.cases = cases
    }

    /// String values named `prefix + suffix` (`kSecAttrProtocol` + `HTTPS` for `htps`).
    package init(prefix: String, _ pairs: KeyValuePairs<String, String>) {
        self.init(cases: pairs.map { (KeychainValue.string($0.value), prefix + $0.key) })
    }

    public func name(of raw: KeychainValue) -> String? { cases.first { $0.raw == raw }?.name }
    public func raw(named name: String) -> KeychainValue? { cases.first { $0.name == name }?.raw }
    public func pathName(of raw: KeychainValue) -> String? { cases.first { $0.raw == raw }?.pathName }
    public func raw(pathName: String) -> KeychainValue? { cases.first { $0.pathName == pathName }?.raw }
    /// An enumeration whose every case has a path name (key classes) is closed: the filesystem accepts
    /// only its cases, by name or raw value.
    public var isClosed: Bool { cases.allSatisfy { $0.pathName != nil } }
}

extension AttributeDescriptor {
    /// Converts a caller's value to this attribute's kind, as SecItem calls do (errSecParam if it cannot be).
    public func coerce(_ value: KeychainValue) throws(KeychainError) -> KeychainValue {
        try ValueCoercion.coerce(value, to: self)
    }

    /// The same attribute with other flags (a class where it is, or is not, part of the primary key).
    package func with(_ flags: AttributeFlags, default defaultValue: KeychainValue? = nil) -> AttributeDescriptor {
        AttributeDescriptor(
            code, name, kind, flags, default: defaultValue ?? self.defaultValue, enumeration: enumeration, range: range)
    }
}
