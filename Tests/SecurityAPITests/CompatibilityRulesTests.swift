import Foundation
import Security
import Testing
import KeychainFSTestSupport

/// Hostile numbers and identity add by reference (docs/swift-api.md), in this file's
/// language mode.
@Suite struct CompatibilityRulesTests {
    /// Every number that does not convert exactly to an integer attribute, as NSNumber and as a Swift value.
    static var inexact: [(String, Any)] {
        [
            ("NaN", NSNumber(value: Double.nan)), ("+inf", NSNumber(value: Double.infinity)),
            ("-inf", NSNumber(value: -Double.infinity)),
            ("1e30", NSNumber(value: 1e30)), ("1.5", NSNumber(value: 1.5)), ("UInt64.max", NSNumber(value: UInt64.max)),
            ("Float NaN", NSNumber(value: Float.nan)), ("Swift Double.nan", Double.nan), ("Swift 1e30", 1e30),
            ("Swift UInt64.max", UInt64.max),
        ]
    }

    @Test func hostileNumbersAreErrSecParamInEveryCallAndStoreNothing() throws {
        let server = uniqueService("hostile-port")
        let base: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
            kSecAttrAccount as String: "a",
        ]
        #expect(SecItemAdd(base as CFDictionary, nil) == errSecSuccess)
        for (name, number) in Self.inexact {
            var with = base
            with[kSecAttrPort as String] = number
            with[kSecAttrAccount as String] = "b"
            #expect(SecItemAdd(with as CFDictionary, nil) == errSecParam, "add, port \(name)")
            #expect(SecItemCopyMatching(with as CFDictionary, nil) == errSecParam, "copy, port \(name)")
            #expect(
                SecItemUpdate(with as CFDictionary, [kSecAttrLabel as String: "x"] as CFDictionary) == errSecParam,
                "update query, port \(name)")
            #expect(
                SecItemUpdate(base as CFDictionary, [kSecAttrPort as String: number] as CFDictionary) == errSecParam,
                "update, port \(name)")
            #expect(SecItemDelete(with as CFDictionary) == errSecParam, "delete, port \(name)")
        }
        var result: CFTypeRef?
        let all: [String: Any] = [
            kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: server,
            kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true,
        ]
        #expect(SecItemCopyMatching(all as CFDictionary, &result) == errSecSuccess)
        let items = try #require(result as? [[String: Any]])
        #expect(items.count == 1, "nothing was added")
        #expect((items.first?[kSecAttrPort as String] as? NSNumber)?.intValue == 0, "nothing was updated")
        #expect(items.first?[kSecAttrLabel as String] == nil)

        var exact = base
        exact[kSecAttrAccount as String] = "c"
        exact[kSecAttrPort as String] = NSNumber(value: 443.0)
        #expect(SecItemAdd(exact as CFDictionary, nil) == errSecSuccess, "a double that is an integer converts exactly")
        exact[kSecReturnAttributes as String] = true
        #expect(SecItemCopyMatching(exact as CFDictionary, &result) == errSecSuccess)
        #expect(((result as? [String: Any])?[kSecAttrPort as String] as? NSNumber)?.intValue == 443)
    }

    @Test func deeplyNestedValuesAreErrSecParamNotAStackOverflow() {
        var nested: Any = Data("x".utf8)
        for _ in 0..<5_000 { nested = NSArray(object: nested) }
        let service = uniqueService("nested")
        let add: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrGeneric as String: nested,
        ]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecParam)
        #expect(SecItemCopyMatching(add as CFDictionary, nil) == errSecParam)
        #expect(SecItemDelete(add as CFDictionary) == errSecParam)
        #expect(
            SecItemCopyMatching(
                [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service] as CFDictionary, nil
            ) == errSecItemNotFound)
    }

    @Test func identityAddedByReferenceAddsItsCertificateAndKey() throws {
        let name = uniqueService("identity-add")
        let certificate = try TestCertificate(commonName: name)
        let made = try #require(SecCertificateCreateWithData(nil, certificate.der as CFData))
        #expect(SecItemAdd([kSecValueRef: made] as CFDictionary, nil) == errSecSuccess)
        try TaggedKeyStore(tag: Data(name.utf8)).store(privateKeyX963: certificate.privateKeyX963)
        let query: [String: Any] = [
            kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: name, kSecReturnRef as String: true,
        ]
        var result: CFTypeRef?
        #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
        let identity = try #require(result as? SecIdentity)
        #expect(SecItemDelete([kSecClass: kSecClassIdentity, kSecAttrLabel: name] as CFDictionary) == errSecSuccess)
        #expect(
            SecItemCopyMatching(
                [kSecClass: kSecClassKey, kSecAttrApplicationTag: Data(name.utf8)] as CFDictionary, nil)
                == errSecItemNotFound,
            "deleting the identity took its key")

        result = nil
        #expect(SecItemAdd([kSecValueRef: identity, kSecReturnRef: true] as CFDictionary, &result) == errSecSuccess)
        #expect(result as? SecIdentity == identity, "the added identity comes back, equal (CFEqual semantics)")
        #expect(
            SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, "certificate and key are both back")
        #expect(
            SecItemCopyMatching([kSecClass: kSecClassCertificate, kSecAttrLabel: name] as CFDictionary, nil)
                == errSecSuccess)
        #expect(
            SecItemCopyMatching(
                [kSecClass: kSecClassKey, kSecAttrApplicationLabel: certificate.publicKeyHash] as CFDictionary, nil)
                == errSecSuccess,
            "the key is back, labelled by its public key hash")
        #expect(SecItemAdd([kSecValueRef: identity] as CFDictionary, nil) == errSecDuplicateItem)
        #expect(
            SecItemAdd([kSecClass: kSecClassGenericPassword, kSecValueRef: identity] as CFDictionary, nil)
                == errSecParam)
    }
}
