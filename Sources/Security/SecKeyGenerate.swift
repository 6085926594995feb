import Crypto
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// A new key pair's private key (Apple's `SecKeyCreateRandomKey`). `parameters`: kSecAttrKeyType (EC or
/// RSA) and kSecAttrKeySizeInBits (EC 256/384/521; RSA 512…8192, Apple's rule), optionally
/// kSecAttrTokenID: kSecAttrTokenIDSecureEnclave (EC 256 only: made and used in the engine),
/// kSecAttrIsPermanent, and per-key attributes in kSecPrivateKeyAttrs / kSecPublicKeyAttrs (they win over
/// the top level). A permanent key is stored as SecItemAdd would store it (tag, label, access group,
/// accessibility, access control; application label the public key's SHA-1); else it lives only in
/// this process (a Secure Enclave key's blob is useless elsewhere).
public func SecKeyCreateRandomKey(_ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?)
    -> SecKey?
{
    do {
        return try KeyGeneration.generate(
            try ValueBridge.dictionary(parameters),
            context: ValueBridge.authenticationContext(in: parameters as NSDictionary))
    } catch let failure as KeyFailure {
        CFBridge.report(failure.status, failure.message, to: error)
    } catch let failure as KeychainError {
        CFBridge.report(failure.status, failure.message, to: error)
    } catch let other {
        CFBridge.report(errSecInternal, "key generation failed: \(other)", to: error)
    }
    return nil
}

enum KeyGeneration {
    static let privateAttrs = "private", publicAttrs = "public"
    private static let permanent = Attributes.isPermanent.code

    /// `context`: kSecUseAuthenticationContext of the call, kept by the key for its operations.
    static func generate(_ parameters: KeychainDictionary, context: (any SecAuthenticationContextProviding)? = nil)
        throws -> SecKey
    {
        guard let type = KeyMaterial.integer(parameters[Attributes.keyType.code]) else {
            throw KeyFailure(errSecParam, "kSecAttrKeyType is required")
        }
        guard let bits = KeyMaterial.integer(parameters[Attributes.keySizeInBits.code]).map(Int.init) else {
            throw KeyFailure(errSecParam, "kSecAttrKeySizeInBits is required")
        }
        let token = parameters[Attributes.tokenID.code]?.stringValue
        let privateGiven = parameters[privateAttrs]?.dictionaryValue ?? [:],
            publicGiven = parameters[publicAttrs]?.dictionaryValue ?? [:]
        var common = parameters
        for name in [
            Attributes.keyType.code, Attributes.keySizeInBits.code, Attributes.tokenID.code, privateAttrs, publicAttrs,
            permanent,
        ] { common[name] = nil }
        var privateAttributes = common.merging(privateGiven) { $1 },
            publicAttributes = common.merging(publicGiven) { $1 }
        let privatePermanent = isTrue(privateGiven[permanent] ?? parameters[permanent])
        let publicPermanent = isTrue(publicGiven[permanent] ?? parameters[permanent])
        privateAttributes[permanent] = nil
        publicAttributes[permanent] = nil

        let material: KeyMaterial
        switch (type, token) {
        case (KeyMaterial.ecType, SecureEnclaveBlob.tokenID?):
            guard bits == 256 else { throw KeyFailure(errSecParam, "the Secure Enclave makes P-256 keys only") }
            // The blob is bound to its class: name it explicitly, so a daemon's own default cannot differ.
            let accessibility =
                privateAttributes[Attributes.accessible.code]?.stringValue ?? Schema.key.defaultAccessibility.rawValue
            privateAttributes[Attributes.accessible.code] = .string(accessibility)
            let blob = try SecureEnclaveClient.generate(accessibility: accessibility)
            privateAttributes[Attributes.tokenID.code] = .string(SecureEnclaveBlob.tokenID)
            privateAttributes[Attributes.keyClass.code] = .number(KeyMaterial.privateClass)
            privateAttributes[Attributes.keyType.code] = .number(KeyMaterial.ecType)
            guard let made = KeyMaterial(attributes: privateAttributes, data: blob, persistentRef: nil) else {
                throw KeyFailure(errSecInternal, "the Secure Enclave returned no key")
            }
            material = made
            // as on a device: the private part never leaves
            privateAttributes[Attributes.isExtractable.code] = .number(0)
        case (_, let token?):
            throw KeyFailure(errSecParam, "unknown kSecAttrTokenID '\(token)'")
        case (KeyMaterial.ecType, nil):
            guard let key = ECKeyMaterial.generate(bits: bits) else {
                throw KeyFailure(errSecParam, "EC keys are 256, 384 or 521 bits, not \(bits)")
            }
            material = .ec(key)
        case (KeyMaterial.rsaType, nil):
            material = .rsa(try RSAKeyMaterial.generate(bits: bits))
        default:
            throw KeyFailure(errSecParam, "unsupported kSecAttrKeyType")
        }

        let label: KeychainValue = .data(Data(Insecure.SHA1.hash(data: material.publicKeyBytes)))
        privateAttributes.merge(material.describingAttributes) { $1 }
        privateAttributes[Attributes.applicationLabel.code] =
            privateAttributes[Attributes.applicationLabel.code] ?? label
        let publicMaterial = material.publicMaterial
        publicAttributes.merge(publicMaterial.describingAttributes) { $1 }
        publicAttributes[Attributes.applicationLabel.code] = publicAttributes[Attributes.applicationLabel.code] ?? label
        for name in [Attributes.accessible.code, Attributes.accessControl.code] {
            publicAttributes[name] = publicGiven[name]
        }  // protection is the private key's

        guard privatePermanent else {
            if publicPermanent { _ = try store(publicAttributes, publicMaterial.externalRepresentation) }
            return SecKey(
                attributes: privateAttributes, keyData: material.externalRepresentation, persistentRef: nil,
                authenticationContext: context)
        }
        let (attributes, reference) = try store(privateAttributes, material.externalRepresentation)
        if publicPermanent {
            do { _ = try store(publicAttributes, publicMaterial.externalRepresentation) } catch {
                _ = SecItemSession.call { connection throws(KeychainError) in
                    try connection.delete([
                        QueryKey.class: .string(Schema.key.code), QueryKey.valuePersistentRef: .data(reference),
                    ])
                }
                throw error
            }
        }
        return SecKey(
            attributes: attributes, keyData: material.externalRepresentation, persistentRef: reference,
            authenticationContext: context)
    }

    /// Adds a key item as SecItemAdd does; its stored attributes and persistent reference.
    private static func store(_ attributes: KeychainDictionary, _ data: Data) throws(KeyFailure) -> (
        KeychainDictionary, Data
    ) {
        var request = attributes
        request[QueryKey.class] = .string(Schema.key.code)
        request[QueryKey.valueData] = .data(data)
        request[QueryKey.returnAttributes] = true
        request[QueryKey.returnPersistentRef] = true
        var stored: KeychainDictionary?
        var message = ""
        let status = SecItemSession.call { connection throws(KeychainError) in
            do throws(KeychainError) { stored = try connection.add(request)?.dictionaryValue } catch {
                message = error.message
                throw error
            }
        }
        guard status == errSecSuccess, var stored,
            let reference = stored.removeValue(forKey: QueryKey.valuePersistentRef)?.dataValue
        else {
            throw KeyFailure(
                status == errSecSuccess ? errSecInternal : status,
                message.isEmpty ? SecStatus.message(of: status) : message)
        }
        stored[QueryKey.class] = .string(Schema.key.code)
        return (stored, reference)
    }

    private static func isTrue(_ value: KeychainValue?) -> Bool { KeyMaterial.integer(value).map { $0 != 0 } ?? false }
}
