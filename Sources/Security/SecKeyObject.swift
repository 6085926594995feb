import Foundation
import KeychainEngine

/// A key (Apple's `SecKey`) as the keychain returns it for kSecReturnRef: its attributes and, unless it
/// is not extractable, its bytes in Apple's external representation. No cryptographic operations.
public final class SecKey: Sendable {
    let attributes: KeychainDictionary
    let keyData: Data?
    let persistentRef: Data?

    init(attributes: KeychainDictionary, keyData: Data?, persistentRef: Data?) {
        self.attributes = attributes
        self.keyData = keyData
        self.persistentRef = persistentRef
    }

    /// The schema's rule for keys that keep their bytes (the one the filesystem follows too).
    var isExtractable: Bool {
        guard let rule = Schema.key.secretWithheldWhen else { return true }
        return attributes[rule.code] != rule.value
    }
}

/// The key's bytes in Apple's external representation (Apple's `SecKeyCopyExternalRepresentation`):
/// x9.63 for EC keys, PKCS#1 for RSA keys, the raw bytes for symmetric ones, as they were stored. Nil,
/// with an errSecUnimplemented error, for keys that are not extractable.
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData? {
    guard key.isExtractable, let data = key.keyData else {
        CFBridge.report(errSecUnimplemented, "the key is not extractable", to: error)
        return nil
    }
    return NSData(data: data)
}

/// The key's keychain attributes, as kSecReturnAttributes would give them (Apple's `SecKeyCopyAttributes`).
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    ValueBridge.object(.dictionary(key.attributes)) as? NSDictionary
}

/// A key from its external representation and its type attributes, kSecAttrKeyType and kSecAttrKeyClass
/// (Apple's `SecKeyCreateWithData`). The bytes are kept as given: this module stores and returns keys,
/// it does not compute with them.
public func SecKeyCreateWithData(_ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? {
    let given: KeychainDictionary
    do { given = try ValueBridge.dictionary(attributes) } catch { given = [:] }
    guard keyData.length > 0, given[Attributes.keyType.code] != nil, given[Attributes.keyClass.code] != nil else {
        CFBridge.report(errSecParam, "key data and kSecAttrKeyType and kSecAttrKeyClass are required", to: error)
        return nil
    }
    return SecKey(attributes: given, keyData: Data(keyData), persistentRef: nil)
}
