import Foundation
import Security

/// Seed 002 as an iOS app writes it (Apple's "Generating New Cryptographic Keys" and "Storing Keys in
/// the Keychain"): generate a permanent pair with a tag, find the private key by tag with kSecReturnRef,
/// sign, verify with the public key, delete. Compiled in Swift 6 and Swift 5 modes.
struct TaggedKeyPair {
    let tag: Data
    let keyType: CFString
    let bits: Int
    var tokenID: CFString? = nil

    enum Failure: Error { case status(OSStatus), error(Error), missing(String) }

    @discardableResult
    func generate() throws -> SecKey {
        var attributes: [String: Any] = [
            kSecAttrKeyType as String: keyType,
            kSecAttrKeySizeInBits as String: bits,
            kSecPrivateKeyAttrs as String: [
                kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
            ],
        ]
        if let tokenID { attributes[kSecAttrTokenID as String] = tokenID }
        var error: Unmanaged<CFError>?
        guard let privateKey = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
            throw Failure.error(error!.takeRetainedValue() as Error)
        }
        return privateKey
    }

    func find() throws -> SecKey {
        let getquery: [String: Any] = [
            kSecClass as String: kSecClassKey,
            kSecAttrApplicationTag as String: tag,
            kSecAttrKeyType as String: keyType,
            kSecReturnRef as String: true,
        ]
        var item: CFTypeRef?
        let status = SecItemCopyMatching(getquery as CFDictionary, &item)
        guard status == errSecSuccess else { throw Failure.status(status) }
        return item as! SecKey
    }

    var algorithm: SecKeyAlgorithm {
        keyType as String == kSecAttrKeyTypeRSA as String
            ? .rsaSignatureMessagePKCS1v15SHA256 : .ecdsaSignatureMessageX962SHA256
    }

    func sign(_ message: Data) throws -> Data {
        let key = try find()
        guard SecKeyIsAlgorithmSupported(key, .sign, algorithm) else { throw Failure.missing("algorithm") }
        var error: Unmanaged<CFError>?
        guard let signature = SecKeyCreateSignature(key, algorithm, message as CFData, &error) as Data? else {
            throw Failure.error(error!.takeRetainedValue() as Error)
        }
        return signature
    }

    func verify(_ message: Data, _ signature: Data) throws -> Bool {
        guard let publicKey = SecKeyCopyPublicKey(try find()) else { throw Failure.missing("public key") }
        var error: Unmanaged<CFError>?
        return SecKeyVerifySignature(publicKey, algorithm, message as CFData, signature as CFData, &error)
    }

    func delete() -> OSStatus {
        SecItemDelete([kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag] as CFDictionary)
    }
}
