/// One item class as data: its attributes, how its items are named, and its defaults.
/// Everything per-class in the engine and the filesystem reads this; there is no per-class code path.
public struct ItemClassSchema: Sendable {
    /// Apple's raw class value (`"genp"`), also the SQL table and the class directory name.
    public let code: String
    /// Apple's constant name (`"kSecClassGenericPassword"`).
    public let name: String
    /// Every attribute the class has.
    public let attributes: [AttributeDescriptor]
    /// The two attributes that name an item in the filesystem: `<class>/<first>/<second>`.
    public let namingAttributes: (group: AttributeDescriptor, item: AttributeDescriptor)
    /// Accessibility given to items added without one (reference §4.1 #5).
    public let defaultAccessibility: Accessibility

    private let byCode: [String: AttributeDescriptor]

    init(code: String, name: String, attributes: [AttributeDescriptor],
         naming: (AttributeDescriptor, AttributeDescriptor), defaultAccessibility: Accessibility) {
        self.code = code
        self.name = name
        self.attributes = attributes
        self.namingAttributes = naming
        self.defaultAccessibility = defaultAccessibility
        self.byCode = Dictionary(uniqueKeysWithValues: attributes.map { ($0.code, $0) })
    }

    /// The descriptor for a raw 4-character code, if the class has that attribute.
    public func attribute(_ code: String) -> AttributeDescriptor? { byCode[code] }
    /// The descriptor whose public constant name is `name` (`"kSecAttrLabel"`).
    public func attribute(named name: String) -> AttributeDescriptor? { attributes.first { $0.name == name } }
    /// The UNIQUE set, in schema order.
    public var primaryKey: [AttributeDescriptor] { attributes.filter(\.isPrimaryKey) }
}

/// The schema table: every item class the engine serves.
public enum Schema {
    /// kSecClassGenericPassword (reference §2.3): UNIQUE(acct, svce, agrp, sync, vwht, tkid, musr, ggrp).
    public static let genericPassword = ItemClassSchema(
        code: "genp", name: "kSecClassGenericPassword",
        attributes: Attributes.common + Attributes.password + [Attributes.service, Attributes.generic],
        naming: (Attributes.service, Attributes.account),
        defaultAccessibility: .whenUnlocked)

    /// All served classes, in directory-listing order.
    public static let classes: [ItemClassSchema] = [genericPassword]

    /// Class values Apple defines (reference §1.1); the ones not served yet answer errSecNoSuchClass.
    public static let appleClassValues: Set<String> = ["genp", "inet", "cert", "keys", "idnt"]

    /// The schema for a raw class value.
    public static func schema(for code: String) -> ItemClassSchema? { classes.first { $0.code == code } }
}
