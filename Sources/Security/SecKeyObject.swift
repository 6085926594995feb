import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// A key (Apple's `SecKey`): its keychain attributes, its bytes in Apple's external representation
/// (unless it is not extractable), and what computes with them: swift-crypto for EC keys, libcrypto for
/// RSA keys, the daemon's simulated Secure Enclave for token keys (whose bytes are a wrapped blob).
public final class SecKey: Sendable {
    let attributes: KeychainDictionary
    let keyData: Data?
    let persistentRef: Data?
    /// What computes with the key; nil for bytes that are no key of a supported type (they can still be
    /// stored and found, as Apple stores any kSecClassKey item).
    let material: KeyMaterial?

    init(
        attributes: KeychainDictionary, keyData: Data?, persistentRef: Data?,
        authenticationContext: (any SecAuthenticationContextProviding)? = nil
    ) {
        let attributes = attributes.filter { !$0.key.hasPrefix("u_") }  // kSecUse… keys are the call's, not the key's
        self.attributes = attributes
        self.keyData = keyData
        self.persistentRef = persistentRef
        material = keyData.flatMap {
            KeyMaterial(
                attributes: attributes, data: $0, persistentRef: persistentRef,
                authenticationContext: authenticationContext)
        }
    }

    /// The engine's read policy for keys that keep their bytes (the one the filesystem follows too).
    var isExtractable: Bool { !Keychain.withholdsSecret(Schema.key, attributes) }

    /// kSecAttrKeyClass as a number (0 public, 1 private, 2 symmetric); attributes may hold its raw string.
    var keyClass: Int64? { KeyMaterial.integer(attributes[Attributes.keyClass.code]) }
}

/// The key's bytes in Apple's external representation (Apple's `SecKeyCopyExternalRepresentation`):
/// x9.63 for EC keys, PKCS#1 for RSA keys, the raw bytes for symmetric ones. Nil, with an
/// errSecUnimplemented error, for keys that are not extractable (Secure Enclave keys among them).
public func SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?)
    -> CFData?
{
    if case .secureEnclave? = key.material {
        CFBridge.report(errSecUnimplemented, "a Secure Enclave key's private part never leaves the enclave", to: error)
        return nil
    }
    guard key.isExtractable, let data = key.keyData else {
        CFBridge.report(errSecUnimplemented, "the key is not extractable", to: error)
        return nil
    }
    return NSData(data: data)
}

/// The key's attributes (Apple's `SecKeyCopyAttributes`): its keychain attributes, with kSecValueData
/// holding its external representation when it is extractable.
public func SecKeyCopyAttributes(_ key: SecKey) -> CFDictionary? {
    var attributes = key.attributes
    if let data = key.keyData, key.isExtractable, key.material?.isToken != true {
        attributes[QueryKey.valueData] = .data(data)
    }
    return ValueBridge.object(.dictionary(attributes)) as? NSDictionary
}

/// A key from its external representation and kSecAttrKeyType and kSecAttrKeyClass (Apple's
/// `SecKeyCreateWithData`): x9.63 for EC keys, PKCS#1 for RSA keys, any bytes for symmetric ones.
/// errSecParam when the bytes are not a key of that type and class.
public func SecKeyCreateWithData(
    _ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    let given: KeychainDictionary
    do { given = try ValueBridge.dictionary(attributes) } catch let failure {
        CFBridge.report(failure.status, failure.message, to: error)
        return nil
    }
    guard keyData.length > 0, let type = KeyMaterial.integer(given[Attributes.keyType.code]),
        let keyClass = KeyMaterial.integer(given[Attributes.keyClass.code])
    else {
        CFBridge.report(errSecParam, "key data and kSecAttrKeyType and kSecAttrKeyClass are required", to: error)
        return nil
    }
    var attributes = given
    let data = Data(keyData)
    if keyClass != KeyMaterial.symmetricClass {
        guard let material = KeyMaterial(attributes: given, data: data, persistentRef: nil) else {
            let kind = type == KeyMaterial.rsaType ? "RSA" : "EC"
            CFBridge.report(
                errSecParam,
                "\(kind) \(keyClass == KeyMaterial.privateClass ? "private" : "public") key creation from data failed",
                to: error)
            return nil
        }
        attributes.merge(material.describingAttributes) { given, _ in given }
    }
    return SecKey(attributes: attributes, keyData: data, persistentRef: nil)
}
