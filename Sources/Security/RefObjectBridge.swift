import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// Ref objects (SecKey, SecCertificate, SecIdentity) ↔ what the engine works with. The engine has no
/// objects: for kSecReturnRef it describes the item (attributes, class, persistent reference, data) and
/// the object is built here; a kSecValueRef given to a call is expanded here, as Apple's client library
/// expands it before the request reaches securityd.
enum RefObjectBridge {
    /// The object an engine description stands for; nil if it describes none. `authenticationContext`: the
    /// call's kSecUseAuthenticationContext, which a key keeps for its operations (as Apple's key refs do).
    static func object(
        _ description: KeychainValue, authenticationContext: (any SecAuthenticationContextProviding)? = nil
    ) -> AnyObject? {
        guard case .dictionary(var d) = description, let classCode = d.removeValue(forKey: QueryKey.class)?.stringValue
        else { return nil }
        let persistentRef = d.removeValue(forKey: QueryKey.valuePersistentRef)?.dataValue
        let data = d.removeValue(forKey: QueryKey.valueData)?.dataValue
        switch classCode {
        case Schema.key.code:
            return SecKey(
                attributes: d, keyData: data, persistentRef: persistentRef, authenticationContext: authenticationContext
            )
        case Schema.certificate.code:
            return SecCertificate(der: data ?? Data(), attributes: d, persistentRef: persistentRef)
        case Schema.identity.code:
            guard
                let certificate = d[ResultBuilder.IdentityHalf.certificate].flatMap({ object($0) }) as? SecCertificate,
                let key = d[ResultBuilder.IdentityHalf.key].flatMap({
                    object($0, authenticationContext: authenticationContext)
                }) as? SecKey
            else { return nil }
            return SecIdentity(certificate: certificate, privateKey: key, persistentRef: persistentRef)
        default:
            return nil
        }
    }

    /// How kSecMatchItemList names a keychain object: by its persistent reference (an identity by its
    /// certificate's, as Apple matches it). Nil for values that are not keychain objects.
    static func persistentReference(_ object: Any) throws(KeychainError) -> KeychainValue? {
        let reference: Data?
        switch object {
        case let key as SecKey: reference = key.persistentRef
        case let certificate as SecCertificate: reference = certificate.persistentRef
        case let identity as SecIdentity: reference = identity.certificate.persistentRef
        default: return nil
        }
        guard let reference else {
            throw KeychainError(SecStatus.param, "a kSecMatchItemList object is in no keychain")
        }
        return .data(reference)
    }

    /// Replaces a kSecValueRef in `dictionary`. For SecItemAdd the object's content is added: a
    /// certificate's DER, a key's bytes and type attributes. For the other calls it names the item: by
    /// persistent reference when it came from the keychain, else (a certificate made from data) by issuer
    /// and serial number, its primary key.
    static func expand(_ dictionary: inout KeychainDictionary, _ object: Any, forAdd: Bool) throws(KeychainError) {
        func setClass(_ code: String) throws(KeychainError) {
            if let given = dictionary[QueryKey.class], given != .string(code) {
                throw KeychainError(SecStatus.param, "kSecValueRef does not belong to the kSecClass given")
            }
            dictionary[QueryKey.class] = .string(code)
        }
        switch object {
        case let certificate as SecCertificate:
            try setClass(Schema.certificate.code)
            if forAdd {
                dictionary[QueryKey.valueData] = .data(certificate.der)
            } else if let ref = certificate.persistentRef {
                dictionary[QueryKey.valuePersistentRef] = .data(ref)
            } else {
                guard let issuer = certificate.attributes[Attributes.issuer.code],
                    let serial = certificate.attributes[Attributes.serialNumber.code]
                else {
                    throw KeychainError(
                        SecStatus.param, "the certificate has no issuer and serial number to name its item by")
                }
                dictionary[Attributes.issuer.code] = issuer
                dictionary[Attributes.serialNumber.code] = serial
            }
        case let key as SecKey:
            try setClass(Schema.key.code)
            if forAdd {
                guard let data = key.keyData else {
                    throw KeychainError(SecStatus.param, "the key's bytes are not available to add")
                }
                dictionary[QueryKey.valueData] = .data(data)
                // What the bytes are: the key class and the attributes the schema marks as describing the value.
                let describing = Schema.key.attributes.filter {
                    $0 == Attributes.keyClass || $0.flags.contains(.describesValue)
                }
                for attribute in describing where dictionary[attribute.code] == nil {
                    dictionary[attribute.code] = key.attributes[attribute.code]
                }
                // A Secure Enclave key's bytes are its blob: it stays a token key, never extractable.
                if key.material?.isToken == true {
                    dictionary[Attributes.tokenID.code] = .string(SecureEnclaveBlob.tokenID)
                    dictionary[Attributes.isExtractable.code] = .number(0)
                    dictionary[Attributes.accessible.code] =
                        dictionary[Attributes.accessible.code] ?? key.attributes[Attributes.accessible.code]
                }
            } else {
                // A key made from data is in no keychain; matching on its class alone would reach every key.
                guard let ref = key.persistentRef else {
                    throw KeychainError(SecStatus.itemNotFound, "the kSecValueRef object is in no keychain")
                }
                dictionary[QueryKey.valuePersistentRef] = .data(ref)
            }
        case let identity as SecIdentity:
            // Adding one adds its two halves (IdentityAdd); here it names its item.
            guard !forAdd, let ref = identity.persistentRef else {
                throw KeychainError(SecStatus.param, "the SecIdentity is in no keychain")
            }
            try setClass(Schema.identity.code)
            dictionary[QueryKey.valuePersistentRef] = .data(ref)
        default:
            throw KeychainError(SecStatus.param, "kSecValueRef must be a SecKey, SecCertificate or SecIdentity")
        }
    }
}
