import Foundation
import Security
import Testing
import KeychainFSTestSupport

/// Secure Enclave keys through the Security API in-process (the engine runs in this process when no
/// daemon serves the vault): signing, ECIES decryption and key exchange go to the enclave; export fails.
@Suite struct SecureEnclaveKeyTests {
    @Test func enclaveKeysSignDecryptAndExchangeButNeverExport() throws {
        _ = InProcessVault.path
        let tag = Data("se.inprocess.\(UUID().uuidString)".utf8)
        var error: Unmanaged<CFError>?
        let access = SecAccessControlCreateWithFlags(
            nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .privateKeyUsage, nil)!
        let key = try #require(
            SecKeyCreateRandomKey(
                [
                    kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256,
                    kSecAttrTokenID: kSecAttrTokenIDSecureEnclave,
                    kSecPrivateKeyAttrs: [
                        kSecAttrIsPermanent: true, kSecAttrApplicationTag: tag,
                        kSecAttrAccessControl: access,
                    ],
                ] as CFDictionary, &error),
            "\(String(describing: code(error)))")
        defer { _ = SecItemDelete([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag] as CFDictionary) }
        #expect(SecKeyCopyExternalRepresentation(key, &error) == nil && code(error) == Int(errSecUnimplemented))
        let attributes = try #require(SecKeyCopyAttributes(key) as? [String: Any])
        #expect(attributes[kSecAttrTokenID as String] as? String == kSecAttrTokenIDSecureEnclave as String)
        #expect(attributes[kSecValueData as String] == nil)
        #expect(SecKeyGetBlockSize(key) == 32)
        let publicKey = try #require(SecKeyCopyPublicKey(key))
        #expect((SecKeyCopyExternalRepresentation(publicKey, nil) as Data?)?.count == 65, "the public key is readable")

        let message = Data("enclave".utf8)
        let signature = try #require(
            SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message as CFData, &error) as Data?)
        #expect(
            SecKeyVerifySignature(
                publicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, signature as CFData, nil))

        let ciphertext = try #require(
            SecKeyCreateEncryptedData(
                publicKey, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, message as CFData, nil) as Data?)
        #expect(
            SecKeyCreateDecryptedData(
                key, .eciesEncryptionCofactorVariableIVX963SHA256AESGCM, ciphertext as CFData, nil) as Data? == message)

        let peer = TestKeys.make(kSecAttrKeyTypeECSECPrimeRandom, 256)
        let parameters = [SecKeyKeyExchangeParameter.requestedSize.rawValue: 32] as [CFString: Any] as CFDictionary
        let ours =
            SecKeyCopyKeyExchangeResult(
                key, .ecdhKeyExchangeStandardX963SHA256, SecKeyCopyPublicKey(peer)!, parameters, nil) as Data?
        let theirs =
            SecKeyCopyKeyExchangeResult(peer, .ecdhKeyExchangeStandardX963SHA256, publicKey, parameters, nil) as Data?
        #expect(ours != nil && ours == theirs)

        // Found again by tag: a reference, still usable, still not exportable.
        var item: CFTypeRef?
        #expect(
            SecItemCopyMatching(
                [kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecReturnRef: true] as CFDictionary, &item)
                == errSecSuccess)
        let found = item as! SecKey
        #expect(SecKeyCreateSignature(found, .ecdsaSignatureDigestX962SHA256, Data(count: 32) as CFData, nil) != nil)
        #expect(SecKeyCopyExternalRepresentation(found, nil) == nil)
        // The enclave makes P-256 keys only.
        error = nil
        #expect(
            SecKeyCreateRandomKey(
                [
                    kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 384,
                    kSecAttrTokenID: kSecAttrTokenIDSecureEnclave,
                ] as CFDictionary, &error) == nil && code(error) == Int(errSecParam))
    }

    @Test func aTransientEnclaveKeyAddedByReferenceStaysAnEnclaveKey() throws {
        _ = InProcessVault.path
        let tag = Data("se.byref.\(UUID().uuidString)".utf8)
        let key = try #require(
            SecKeyCreateRandomKey(
                [
                    kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256,
                    kSecAttrTokenID: kSecAttrTokenIDSecureEnclave,
                ] as CFDictionary, nil))
        #expect(
            SecItemAdd([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecValueRef: key] as CFDictionary, nil)
                == errSecSuccess)
        defer { _ = SecItemDelete([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag] as CFDictionary) }
        var item: CFTypeRef?
        #expect(
            SecItemCopyMatching(
                [kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecReturnRef: true] as CFDictionary, &item)
                == errSecSuccess)
        let found = try #require(item.map { $0 as! SecKey })
        #expect(found == key)
        #expect(SecKeyCopyExternalRepresentation(found, nil) == nil)
        let signature = try #require(
            SecKeyCreateSignature(found, .ecdsaSignatureMessageX962SHA256, Data("x".utf8) as CFData, nil) as Data?)
        #expect(
            SecKeyVerifySignature(
                SecKeyCopyPublicKey(key)!, .ecdsaSignatureMessageX962SHA256, Data("x".utf8) as CFData,
                signature as CFData, nil))
    }
}
