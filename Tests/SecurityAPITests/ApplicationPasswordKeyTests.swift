import Foundation
import LocalAuthentication
import Security
import Testing

/// A permanent software key made with `.applicationPassword` (docs/authentication-table.md, rule 8), as an
/// app writes it: the LAContext with the password goes to SecKeyCreateRandomKey and to the lookup.
@Suite struct ApplicationPasswordKeyTests {
    @Test func aKeyIsFoundWithItsPasswordOnly() throws {
        let tag = Data(uniqueService("apw-key").utf8)
        let made = LAContext()
        #expect(made.setCredential(Data("pin 4711".utf8), type: .applicationPassword))
        var error: Unmanaged<CFError>?
        let access = try #require(
            SecAccessControlCreateWithFlags(
                nil, kSecAttrAccessibleWhenUnlocked, [.applicationPassword, .privateKeyUsage], &error))
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecUseAuthenticationContext as String: made,
            kSecPrivateKeyAttrs as String: [
                kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
                kSecAttrAccessControl as String: access,
            ] as [String: Any],
        ]
        let created = try #require(
            SecKeyCreateRandomKey(attributes as CFDictionary, &error), "\(String(describing: error))")
        let publicKey = try #require(SecKeyCopyPublicKey(created))

        func find(_ password: String?) -> (OSStatus, SecKey?) {
            var query: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnRef as String: true,
            ]
            if let password {
                let context = LAContext()
                _ = context.setCredential(Data(password.utf8), type: .applicationPassword)
                query[kSecUseAuthenticationContext as String] = context
            }
            var item: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &item)
            return (status, item.map { $0 as! SecKey })
        }
        #expect(find(nil).0 == errSecAuthFailed)
        #expect(find("pin 4712").0 == errSecAuthFailed)
        var attributesOnly: CFTypeRef?
        #expect(
            SecItemCopyMatching(
                [kSecClass: kSecClassKey, kSecAttrApplicationTag: tag, kSecReturnAttributes: true] as CFDictionary,
                &attributesOnly) == errSecSuccess, "attributes need no password")
        let (status, found) = find("pin 4711")
        #expect(status == errSecSuccess)
        let key = try #require(found)
        let message = Data("sign me".utf8)
        let signature = try #require(
            SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, message as CFData, &error) as Data?)
        #expect(
            SecKeyVerifySignature(
                publicKey, .ecdsaSignatureMessageX962SHA256, message as CFData, signature as CFData, &error))
        #expect(
            SecItemDelete([kSecClass: kSecClassKey, kSecAttrApplicationTag: tag] as CFDictionary) == errSecSuccess,
            "deleting needs no password")
    }
}
