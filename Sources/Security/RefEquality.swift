import Foundation
import KeychainFSEngine
import KeychainFSModel

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
    /// Equal key material of the same type and class, as SecKey's CFEqual compares keys; keys whose bytes
    /// are withheld (not extractable) are equal when they are the same keychain item.
    public static func == (lhs: SecKey, rhs: SecKey) -> Bool {
        if lhs === rhs { return true }
        guard let left = lhs.keyData, let right = rhs.keyData else {
            return lhs.persistentRef != nil && lhs.persistentRef == rhs.persistentRef
        }
        let type = Attributes.keyType.code, keyClass = Attributes.keyClass.code
        // Type and class may be held as numbers or as their raw strings ("73").
        func same(_ code: String) -> Bool {
            KeyMaterial.integer(lhs.attributes[code]) == KeyMaterial.integer(rhs.attributes[code])
        }
        return left == right && same(type) && same(keyClass)
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(keyData ?? persistentRef) }
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

extension SecPolicy: Hashable {
    /// Equal kind, server flag and hostname, as SecPolicy's CFEqual compares policies.
    public static func == (lhs: SecPolicy, rhs: SecPolicy) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }
}
