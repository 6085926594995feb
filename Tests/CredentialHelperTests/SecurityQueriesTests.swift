import Foundation
import Security
import Testing
import KeychainFSTestSupport

/// The SecItem queries git's osxkeychain helper makes, through the `Security` module as that helper
/// would make them on a Mac: kSecAttrAuthenticationTypeDefault, and kSecMatchItemList to read and
/// delete one item of a search (docs/credential-helpers.md).
@Suite struct SecurityQueriesTests {
    func copy(_ query: [String: Any]) -> (OSStatus, CFTypeRef?) {
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result)
    }

    @Test func osxkeychainsQueries() throws {
        _ = InProcessVault.path
        let server = "osxkeychain-\(UUID().uuidString.prefix(8)).example"
        let base: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
            kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
            kSecAttrAuthenticationType as String: kSecAttrAuthenticationTypeDefault,
        ]
        for (account, password) in [("alice", "a-pw"), ("bob", "b-pw")] {
            let add = base.merging([kSecAttrAccount as String: account, kSecValueData as String: Data(password.utf8)]) {
                $1
            }
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
        }
        let (found, references) = copy(
            base.merging([kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnPersistentRef as String: true]) { $1 })
        let refs = try #require(references as? [Data])
        #expect(found == errSecSuccess && refs.count == 2)

        let first: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecMatchItemList as String: [refs[0]],
        ]
        let (read, data) = copy(first.merging([kSecReturnData as String: true]) { $1 })
        #expect(read == errSecSuccess && data as? Data == Data("a-pw".utf8), "the item list names exactly one item")
        #expect(SecItemDelete(first as CFDictionary) == errSecSuccess)
        #expect(SecItemDelete(first as CFDictionary) == errSecItemNotFound)
        let (_, left) = copy(
            base.merging([kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true]) { $1 })
        #expect((left as? [[String: Any]])?.map { $0[kSecAttrAccount as String] as? String } == ["bob"])
        #expect((left as? [[String: Any]])?.first?[kSecAttrAuthenticationType as String] as? String == "dflt")

        let empty: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecMatchItemList as String: [Data](),
        ]
        #expect(copy(empty).0 == errSecItemNotFound, "an empty list matches nothing")
        let otherClass: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecMatchItemList as String: [refs[1]],
        ]
        #expect(copy(otherClass).0 == errSecItemNotFound, "a reference to an internet password is no generic password")
        let notRefs: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecMatchItemList as String: ["bob"],
        ]
        #expect(copy(notRefs).0 == errSecParam)
        let identities: [String: Any] = [
            kSecClass as String: kSecClassIdentity, kSecMatchItemList as String: [refs[1]],
        ]
        #expect(copy(identities).0 == errSecUnimplemented, "identities are a join: not served by item list")
        let inAdd = base.merging([kSecAttrAccount as String: "carol", kSecMatchItemList as String: [refs[1]]]) { $1 }
        #expect(SecItemAdd(inAdd as CFDictionary, nil) == errSecParam, "kSecMatch… keys stay refused in SecItemAdd")
        let second: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecMatchItemList as String: [refs[1]],
        ]
        #expect(
            SecItemUpdate(second as CFDictionary, [kSecValueData as String: Data("new".utf8)] as CFDictionary)
                == errSecSuccess)
        #expect(copy(second.merging([kSecReturnData as String: true]) { $1 }).1 as? Data == Data("new".utf8))
        #expect(SecItemDelete(second as CFDictionary) == errSecSuccess)
    }
}

extension SecurityQueriesTests {
    @Test func itemListTakesKeychainObjects() throws {
        _ = InProcessVault.path
        let label = "item-list-\(UUID().uuidString.prefix(8))"
        let made = try #require(SecCertificateCreateWithData(nil, try TestCertificate(commonName: label).der as CFData))
        #expect(SecItemAdd([kSecValueRef: made] as CFDictionary, nil) == errSecSuccess)
        let find: [String: Any] = [
            kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: label, kSecReturnRef as String: true,
        ]
        let (status, result) = copy(find)
        let stored = try #require(result as? SecCertificate)
        #expect(status == errSecSuccess)

        let byObject: [String: Any] = [
            kSecClass as String: kSecClassCertificate, kSecMatchItemList as String: [stored],
            kSecReturnAttributes as String: true,
        ]
        #expect(
            (copy(byObject).1 as? [String: Any])?[kSecAttrLabel as String] as? String == label,
            "a SecCertificate names its item")
        let unstored: [String: Any] = [kSecClass as String: kSecClassCertificate, kSecMatchItemList as String: [made]]
        #expect(copy(unstored).0 == errSecParam, "an object made from data is in no keychain")
        #expect(
            SecItemDelete(
                [kSecClass as String: kSecClassCertificate, kSecMatchItemList as String: [stored]] as CFDictionary)
                == errSecSuccess)
        #expect(copy(find).0 == errSecItemNotFound)
    }
}
