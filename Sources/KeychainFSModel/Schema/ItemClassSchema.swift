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
    /// Accessibility given to items added without one (docs/reference/keychain-semantics.md §4.1 #5).
    public let defaultAccessibility: Accessibility
    /// Derives attributes from the item's value (a certificate's DER, a key's bytes), if the class does.
    package let interpreter: ValueInterpreter?
    /// When this attribute has this value, the secret may not leave the keychain as a file
    /// (keys that are not extractable).
    public let secretWithheldWhen: (code: String, value: KeychainValue)?
    /// A class without a table of its own (kSecClassIdentity, the join of certificates and keys).
    public let isVirtual: Bool

    private let byCode: [String: AttributeDescriptor]

    package init(
        code: String, name: String, attributes: [AttributeDescriptor],
        naming: (AttributeDescriptor, AttributeDescriptor), defaultAccessibility: Accessibility,
        interpreter: ValueInterpreter? = nil, secretWithheldWhen: (code: String, value: KeychainValue)? = nil,
        isVirtual: Bool = false
    ) {
        self.code = code
        self.name = name
        self.attributes = attributes
        self.namingAttributes = naming
        self.defaultAccessibility = defaultAccessibility
        self.interpreter = interpreter
        self.secretWithheldWhen = secretWithheldWhen
        self.isVirtual = isVirtual
        self.byCode = Dictionary(uniqueKeysWithValues: attributes.map { ($0.code, $0) })
    }

    /// Whether an item's secret may not leave the keychain (as a file, or as a key's bytes): a key that is
    /// not extractable, or a private key held by a token (a Secure Enclave key: its value is a sealed blob
    /// only the engine opens, whatever kSecAttrIsExtractable was set to).
    public func withholdsSecret(_ attributes: [String: KeychainValue]) -> Bool {
        if let rule = secretWithheldWhen, attributes[rule.code] == rule.value { return true }
        guard let token = attributes[Attributes.tokenID.code]?.stringValue, !token.isEmpty else { return false }
        return attributes[Attributes.keyClass.code] != .number(0)
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
    /// kSecClassGenericPassword (docs/reference/keychain-semantics.md §2.3): UNIQUE(acct, svce, agrp, sync, vwht, tkid, musr, ggrp).
    public static let genericPassword = ItemClassSchema(
        code: "genp", name: "kSecClassGenericPassword",
        attributes: Attributes.common + Attributes.password + [Attributes.service, Attributes.generic],
        naming: (Attributes.service, Attributes.account),
        defaultAccessibility: .whenUnlocked)

    /// kSecClassInternetPassword (docs/reference/keychain-semantics.md §2.4):
    /// UNIQUE(acct, sdmn, srvr, ptcl, atyp, port, path, agrp, sync, vwht, tkid, musr, ggrp).
    public static let internetPassword = ItemClassSchema(
        code: "inet", name: "kSecClassInternetPassword",
        attributes: Attributes.common + Attributes.password + [
            Attributes.securityDomain, Attributes.server, Attributes.protocol, Attributes.authenticationType,
            Attributes.port, Attributes.path,
        ],
        naming: (Attributes.server, Attributes.account),
        defaultAccessibility: .whenUnlocked)

    /// kSecClassCertificate (docs/reference/keychain-semantics.md §2.5): UNIQUE(ctyp, issr, slnr, agrp, sync, vwht, tkid, musr, ggrp).
    /// Subject, issuer, serial, key ids and a default label come from the DER.
    public static let certificate = ItemClassSchema(
        code: "cert", name: "kSecClassCertificate",
        attributes: Attributes.common + [
            Attributes.certificateType, Attributes.certificateEncoding, Attributes.alias, Attributes.subject,
            Attributes.issuer,
            Attributes.serialNumber, Attributes.subjectKeyID, Attributes.publicKeyHash,
        ],
        naming: (Attributes.label, Attributes.serialNumber),
        defaultAccessibility: .always,
        interpreter: CertificateInterpreter.interpreter)

    /// kSecClassKey (docs/reference/keychain-semantics.md §2.6):
    /// UNIQUE(kcls, klbl, atag, crtr, type, bsiz, esiz, sdat, edat, agrp, sync, vwht, tkid, musr, ggrp).
    public static let key = ItemClassSchema(
        code: "keys", name: "kSecClassKey",
        attributes: Attributes.common + [
            Attributes.keyClass, Attributes.alias, Attributes.applicationLabel, Attributes.applicationTag,
            Attributes.keyCreator,
            Attributes.keyType, Attributes.keySizeInBits, Attributes.effectiveKeySize, Attributes.startDate,
            Attributes.endDate,
        ] + Attributes.keyFlags,
        naming: (Attributes.applicationTag, Attributes.keyClass),
        defaultAccessibility: .whenUnlocked,
        interpreter: KeyInterpreter.interpreter,
        secretWithheldWhen: (Attributes.isExtractable.code, .number(0)))

    /// kSecClassIdentity (docs/reference/keychain-semantics.md §8): a certificate joined with the private key whose application label
    /// is the certificate's public key hash. Its attributes are the certificate's and the key's; it is
    /// named, and unique, like its certificate.
    public static let identity = ItemClassSchema(
        code: "idnt", name: "kSecClassIdentity",
        attributes: certificate.attributes
            + key.attributes.filter { certificate.attribute($0.code) == nil }.map {
                $0.with($0.flags.subtracting([.primaryKey, .materialized, .describesValue]))
            },
        naming: (Attributes.label, Attributes.serialNumber),
        defaultAccessibility: .always,
        isVirtual: true)

    /// All served classes, in directory-listing order.
    public static let classes: [ItemClassSchema] = [genericPassword, internetPassword, key, certificate, identity]

    /// The classes with a table of their own.
    public static let storedClasses: [ItemClassSchema] = classes.filter { !$0.isVirtual }

    /// Class values Apple defines (docs/reference/keychain-semantics.md §1.1); the ones not served yet answer errSecNoSuchClass.
    public static let appleClassValues: Set<String> = ["genp", "inet", "cert", "keys", "idnt"]

    /// Classes whose items kSecReturnRef returns as objects (SecKey, SecCertificate, SecIdentity); for
    /// the password classes it returns nothing (docs/reference/keychain-semantics.md §4.1 #13).
    public static let classesWithRefObjects: Set<String> = [key.code, certificate.code, identity.code]

    /// The schema for a raw class value.
    public static func schema(for code: String) -> ItemClassSchema? { classes.first { $0.code == code } }
}
