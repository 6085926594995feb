import Foundation

// Apple's CF types are Hashable and Equatable in Swift with CFEqual / CFHash semantics: two refs are equal
// when they stand for the same thing, not only when they are the same object. Wrappers rely on it to
// keep a SecAccessControl or SecKey in a `[String: AnyHashable]` query.

extension SecAccessControl: Hashable {
    /// Equal protection class and flags.
    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool {
        lhs.protection == rhs.protection && lhs.flags == rhs.flags
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(protection)
        hasher.combine(flags.rawValue)
    }
}

extension SecKey: Hashable {
    /// Equal key material and attributes (type, class, tags…), as SecKey's CFEqual compares keys.
    public static func == (lhs: SecKey, rhs: SecKey) -> Bool {
        lhs.keyData == rhs.keyData && lhs.attributes == rhs.attributes && lhs.persistentRef == rhs.persistentRef
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keyData)
        hasher.combine(persistentRef)
    }
}

extension SecCertificate: Hashable {
    /// Equal DER, as SecCertificate's CFEqual compares certificates.
    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool { lhs.der == rhs.der }
    public func hash(into hasher: inout Hasher) { hasher.combine(der) }
}

extension SecIdentity: Hashable {
    /// Equal certificate and private key.
    public static func == (lhs: SecIdentity, rhs: SecIdentity) -> Bool {
        lhs.certificate == rhs.certificate && lhs.privateKey == rhs.privateKey
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(certificate)
        hasher.combine(privateKey)
    }
}
