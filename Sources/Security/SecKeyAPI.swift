import Foundation
import KeychainFSModel

// Apple's SecKey operation functions (SecKey.h): nil or false with a CFError whose code is the OSStatus.

/// Runs `body`; a failure goes to the Apple-style `error` out-parameter and gives nil.
private func reporting<R>(_ out: UnsafeMutablePointer<Unmanaged<CFError>?>?, _ body: () throws(KeyFailure) -> R) -> R? {
    do { return try body() } catch {
        CFBridge.report(error.status, error.message, to: out)
        return nil
    }
}

/// The signature of `dataToSign` (a message or a digest, as `algorithm` says) with a private key.
public func SecKeyCreateSignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ dataToSign: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reporting(error) { () throws(KeyFailure) in NSData(data: try SecKeyCrypto.sign(key, algorithm, Data(dataToSign))) }
}

/// Whether `signature` is valid for `signedData` under a public key; false with errSecVerifyFailed when not.
public func SecKeyVerifySignature(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> Bool {
    reporting(error) { () throws(KeyFailure) in
        try SecKeyCrypto.verify(key, algorithm, Data(signedData), Data(signature))
    } ?? false
}

/// `plaintext` encrypted with a public key.
public func SecKeyCreateEncryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reporting(error) { () throws(KeyFailure) in NSData(data: try SecKeyCrypto.encrypt(key, algorithm, Data(plaintext)))
    }
}

/// `ciphertext` decrypted with a private key.
public func SecKeyCreateDecryptedData(
    _ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: CFData,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    reporting(error) { () throws(KeyFailure) in NSData(data: try SecKeyCrypto.decrypt(key, algorithm, Data(ciphertext)))
    }
}

/// The ECDH result of a private key and a peer's public key: the shared secret, or for the X9.63
/// variants `requestedSize` bytes derived with `sharedInfo` (SecKeyKeyExchangeParameter keys).
public func SecKeyCopyKeyExchangeResult(
    _ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey, _ parameters: CFDictionary,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    var values: [String: Any] = [:]
    for (key, value) in parameters {
        if let name = (key as? String) ?? (key as? NSString).map({ String($0) }) {
            values[name] = Swift.type(of: value) == AnyHashable.self ? (value as! AnyHashable).base : value
        }
    }
    return reporting(error) { () throws(KeyFailure) in
        NSData(data: try SecKeyCrypto.exchange(privateKey, algorithm, publicKey, values))
    }
}

/// Whether `key` can perform `operation` with `algorithm`.
public func SecKeyIsAlgorithmSupported(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm)
    -> Bool
{
    guard let material = key.material, let spec = KeyAlgorithmSpec(algorithm) else { return false }
    return SecKeyCrypto.supports(material, operation, spec)
}

/// The key's block size in bytes: an EC coordinate (32, 48, 66), an RSA modulus; 0 for other keys.
public func SecKeyGetBlockSize(_ key: SecKey) -> Int { key.material?.blockSize ?? 0 }

/// The public key of a key pair (a public key returns itself); nil for keys without one.
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? {
    guard let material = key.material else { return nil }
    if !material.isPrivate { return key }
    let publicMaterial = material.publicMaterial
    var attributes = publicMaterial.describingAttributes
    attributes[QueryKey.class] = key.attributes[QueryKey.class]
    for name in [Attributes.applicationLabel.code, Attributes.applicationTag.code, Attributes.label.code]
    where key.attributes[name] != nil { attributes[name] = key.attributes[name] }
    return SecKey(attributes: attributes, keyData: publicMaterial.externalRepresentation, persistentRef: nil)
}
