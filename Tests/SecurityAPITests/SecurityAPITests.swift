import Foundation
import Security
import LocalAuthentication
import Testing
import KeychainFSTestSupport

#if SWIFT5_MODE
    private let mode = "swift5"
#else
    private let mode = "swift6"
#endif

/// A service no other test uses, in the process's one in-process vault.
func uniqueService(_ name: String) -> String {
    _ = InProcessVault.path
    return "\(mode).\(name).\(UUID().uuidString.prefix(8))"
}

/// iOS keychain code against keychainfs (docs/spec.md §6), run in this file's language mode.
@Suite struct SecurityAPITests {
    @Test func addOrUpdateLoadListDelete() async throws {
        let store = GenericPasswordStore(service: uniqueService("store"))
        #expect(try store.load(account: "alice") == nil)
        try store.save("one", account: "alice")
        try store.save("two", account: "alice")  // duplicate → update
        try store.save("x", account: "bob")
        #expect(try store.load(account: "alice") == "two")
        #expect(try Set(store.accounts()) == ["alice", "bob"])
        try store.delete(account: "alice")
        #expect(try store.accounts() == ["bob"])
        let manager = KeychainManager(service: uniqueService("actor"))
        try await manager.save("token", for: "me")
        #expect(try await manager.token(for: "me") == "token")
    }

    @Test func resultShapes() throws {
        let service = uniqueService("shapes")
        for (account, secret) in [("a", "1"), ("b", "2")] {
            let add: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
                kSecAttrAccount as String: account, kSecValueData as String: Data(secret.utf8),
            ]
            #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
        }
        func copy(_ extra: [String: Any]) -> (OSStatus, CFTypeRef?) {
            var query: [String: Any] = [
                kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            ]
            query.merge(extra) { $1 }
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            return (status, result)
        }
        #expect((copy([kSecReturnData as String: true]).1 as? Data) == Data("1".utf8), "one key, limit one: bare data")
        let (existence, nothing) = copy([:])
        #expect(existence == errSecSuccess && nothing == nil, "no return key: success, no result")
        let attrs = copy([kSecReturnAttributes as String: kCFBooleanTrue!]).1 as? [String: Any]
        #expect(attrs?[kSecAttrAccount as String] as? String == "a")
        #expect(attrs?[kSecClass as String] == nil, "no class key in attributes")
        #expect((attrs?[kSecAttrSynchronizable as String] as? NSNumber)?.intValue == 0, "booleans come back as numbers")
        #expect(attrs?[kSecAttrCreationDate as String] is Date)
        let both = copy([kSecReturnAttributes as String: true, kSecReturnData as String: true]).1 as? [String: Any]
        #expect(both?[kSecValueData as String] as? Data == Data("1".utf8))
        let all = copy([kSecReturnData as String: true, kSecMatchLimit as String: kSecMatchLimitAll]).1 as? [Data]
        #expect(all == [Data("1".utf8), Data("2".utf8)], "kSecReturnData with kSecMatchLimitAll is an array of data")
        let dicts =
            copy([kSecReturnAttributes as String: true, kSecMatchLimit as String: 5, kSecAttrAccount as String: "b"]).1
            as? [[String: Any]]
        #expect(dicts?.count == 1, "any limit but one gives an array")
        let ref = copy([kSecReturnPersistentRef as String: true]).1 as? Data
        #expect(ref?.count == 20)
        var byRef: CFTypeRef?
        #expect(
            SecItemCopyMatching([kSecValuePersistentRef: ref!, kSecReturnData: true] as NSDictionary, &byRef)
                == errSecSuccess)
        #expect(byRef as? Data == Data("1".utf8))
    }

    @Test func errorsOfTheReference() throws {
        let service = uniqueService("errors")
        let item: [CFString: Any] = [
            kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: "a",
        ]
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
        #expect(SecItemAdd(item as CFDictionary, nil) == errSecDuplicateItem)
        var limited = item
        limited[kSecMatchLimit] = kSecMatchLimitOne
        #expect(SecItemUpdate(limited as CFDictionary, [kSecAttrLabel: "x"] as CFDictionary) == errSecParam)
        #expect(SecItemDelete(limited as CFDictionary) == errSecParam)
        #expect(
            SecItemUpdate(item as CFDictionary, [kSecClass: kSecClassGenericPassword] as CFDictionary)
                == errSecNoSuchAttr)
        var returning = item
        returning[kSecReturnData] = true
        #expect(
            SecItemUpdate(returning as CFDictionary, [kSecAttrLabel: "x"] as CFDictionary) == errSecParam,
            "kSecReturn… in an update query")
        var matching = item
        matching[kSecAttrAccount] = "new"
        matching[kSecMatchLimit] = kSecMatchLimitOne
        #expect(
            SecItemAdd(matching as CFDictionary, nil) == errSecParam, "kSecMatch… in SecItemAdd (keychainfs's choice)")
        var ref: CFTypeRef?
        #expect(
            SecItemCopyMatching(
                [kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecReturnPersistentRef: true]
                    as CFDictionary, &ref) == errSecSuccess)
        #expect(
            SecItemCopyMatching([kSecValuePersistentRef: ref!, kSecAttrAccount: "a"] as CFDictionary, nil)
                == errSecParam,
            "a persistent reference with other attributes")
        #expect(SecItemUpdate(item as CFDictionary, [kSecValueData: "not data"] as CFDictionary) == errSecParam)
        #expect(SecItemAdd([kSecClass: "apls"] as CFDictionary, nil) == errSecNoSuchClass)
        #expect(SecItemAdd([kSecAttrService: service] as CFDictionary, nil) == errSecParam)
        #expect(
            SecItemCopyMatching([kSecClass: kSecClassCertificate, kSecAttrApplicationTag: "x"] as CFDictionary, nil)
                == errSecNoSuchAttr)
        #expect(
            SecItemCopyMatching([kSecClass: kSecClassGenericPassword, kSecMatchIssuers: [Data]()] as CFDictionary, nil)
                == errSecUnimplemented)
        #expect(
            SecItemCopyMatching(
                [kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecReturnData: 1] as CFDictionary, nil)
                == errSecParam,
            "returns need booleans")
        #expect(
            SecItemDelete([kSecClass: kSecClassGenericPassword, kSecAttrService: service + "-none"] as CFDictionary)
                == errSecItemNotFound)
        #expect(
            SecItemAdd(
                [kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccessGroup: "TEAM.other"]
                    as CFDictionary, nil)
                == errSecMissingEntitlement)
        #expect(
            SecItemAdd(
                [
                    kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecAttrAccount: "p",
                    kSecAttrAccessible: kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly,
                ] as CFDictionary, nil) == errSecAuthFailed,
            "akpu without a passcode")
        #expect(
            SecCopyErrorMessageString(errSecItemNotFound, nil) as String?
                == "The specified item could not be found in the keychain.")
        #expect(
            SecCopyErrorMessageString(errSecInteractionNotAllowed, nil) as String? == "User interaction is not allowed."
        )
    }

    @Test func constantsHaveApplesRawValuesAndHashLikeStrings() {
        let expected: [(CFString, String)] = [
            (kSecClass, "class"), (kSecClassGenericPassword, "genp"), (kSecAttrAccessControl, "accc"),
            (kSecClassInternetPassword, "inet"), (kSecClassCertificate, "cert"),
            (kSecClassKey, "keys"), (kSecClassIdentity, "idnt"), (kSecAttrAccessible, "pdmn"),
            (kSecAttrAccessControl, "accc"),
            (kSecAttrAccount, "acct"), (kSecAttrService, "svce"), (kSecAttrSynchronizableAny, "syna"),
            (kSecAttrProtocolHTTPS, "htps"),
            (kSecAttrProtocolFTP, "ftp "), (kSecAttrAuthenticationTypeHTMLForm, "form"), (kSecAttrKeyClassPrivate, "1"),
            (kSecAttrKeyTypeECSECPrimeRandom, "73"), (kSecAttrKeyTypeEC, "73"), (kSecAttrKeyTypeRSA, "42"),
            (kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, "akpu"), (kSecMatchLimitAll, "m_LimitAll"),
            (kSecReturnData, "r_Data"),
            (kSecValuePersistentRef, "v_PersistentRef"), (kSecUseAuthenticationUISkip, "u_AuthUIS"),
            (kSecAttrPersistentReference, "persistref"),
            (kSecUseDataProtectionKeychain, "nleg"), (kSecAttrTokenIDSecureEnclave, "com.apple.setoken"),
            (kSecMatchCaseInsensitive, "m_CaseInsensitive"),
        ]
        for (constant, raw) in expected {
            #expect(constant as String == raw)
            #expect(AnyHashable(constant) == AnyHashable(raw), "\(raw) hashes like its String")
        }
        let mixed: [AnyHashable: Any] = [kSecAttrAccount: "a", kSecAttrService as String: "s"]
        #expect(mixed[kSecAttrAccount as String] != nil && mixed[kSecAttrService] != nil)
        #expect(
            errSecMissingEntitlement == -34018 && errSecNoSuchAttr == -25303 && errSecInvalidOwnerEdit == -25244
                && noErr == 0)
    }

    @Test func accessControlAndAuthenticationContext() throws {
        let service = uniqueService("accc")
        var error: Unmanaged<CFError>?
        let access = SecAccessControlCreateWithFlags(
            kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .userPresence, &error)
        #expect(access != nil && error == nil)
        #expect(SecAccessControlCreateWithFlags(nil, "bogus" as CFString, [], &error) == nil && error != nil)
        let add: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: "a", kSecAttrAccessControl as String: access!,
        ]
        #expect(SecItemAdd(add as CFDictionary, nil) == errSecSuccess)
        var result: CFTypeRef?
        let context = LAContext()
        context.interactionNotAllowed = true
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnAttributes as String: true, kSecUseAuthenticationContext as String: context,
        ]
        #expect(
            SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess, "attributes need no authentication")
        let attributes = result as? [String: Any]
        #expect(attributes?[kSecAttrAccessible as String] as? String == "aku", "the access control's protection class")
        #expect((attributes?[kSecAttrAccessControl as String] as? SecAccessControl)?.flags == .userPresence)
        var secretQuery = query
        secretQuery[kSecReturnData as String] = true
        #expect(
            SecItemCopyMatching(secretQuery as CFDictionary, &result) == errSecInteractionNotAllowed,
            "a prompt would be needed")
        secretQuery[kSecUseAuthenticationContext as String] = nil
        secretQuery[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUIFail
        #expect(SecItemCopyMatching(secretQuery as CFDictionary, &result) == errSecInteractionNotAllowed)
        secretQuery[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUISkip
        #expect(SecItemCopyMatching(secretQuery as CFDictionary, &result) == errSecItemNotFound, "Skip skips the item")
        secretQuery[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUIAllow
        #expect(
            SecItemCopyMatching(secretQuery as CFDictionary, &result) == errSecAuthFailed,
            "no passcode is set: docs/authentication-table.md, userPresence | nopass")
        var conflicting = add
        conflicting[kSecAttrAccount as String] = "b"
        conflicting[kSecAttrAccessible as String] = kSecAttrAccessibleAlways
        #expect(SecItemAdd(conflicting as CFDictionary, nil) == errSecParam)
        var laError: NSError?
        #expect(!context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &laError) && laError != nil)
    }

    @Test func refObjects() throws {
        let certificate = try TestCertificate(commonName: "refs \(mode)")
        let keys = TaggedKeyStore(tag: Data(uniqueService("key-tag").utf8))
        try keys.store(privateKeyX963: certificate.privateKeyX963)
        let key = try keys.load()
        var error: Unmanaged<CFError>?
        #expect(SecKeyCopyExternalRepresentation(key, &error) as Data? == certificate.privateKeyX963)
        let keyAttributes = SecKeyCopyAttributes(key) as? [String: Any]
        #expect(keyAttributes?[kSecAttrApplicationTag as String] as? Data == keys.tag)
        #expect(
            keyAttributes?[kSecAttrApplicationLabel as String] as? Data == certificate.publicKeyHash,
            "labelled as Apple labels it")

        var result: CFTypeRef?
        let both: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: keys.tag,
            kSecReturnRef as String: true, kSecReturnAttributes as String: true,
        ]
        #expect(SecItemCopyMatching(both as CFDictionary, &result) == errSecSuccess)
        let dictionary = result as? [String: Any]
        #expect(dictionary?[kSecValueRef as String] is SecKey, "two return keys: the ref under kSecValueRef")
        #expect(dictionary?[kSecClass as String] as? String == "keys", "and the class, since a ref was asked for")

        #expect(SecCertificateCreateWithData(nil, Data("not DER".utf8) as CFData) == nil)
        let made = try #require(SecCertificateCreateWithData(nil, certificate.der as CFData))
        #expect(SecItemAdd([kSecValueRef: made] as CFDictionary, nil) == errSecSuccess, "the class comes from the ref")
        let found: [String: Any] = [
            kSecClass as String: kSecClassCertificate, kSecAttrLabel as String: "refs \(mode)",
            kSecReturnRef as String: true,
        ]
        #expect(SecItemCopyMatching(found as CFDictionary, &result) == errSecSuccess)
        let stored = try #require(result as? SecCertificate)
        #expect(SecCertificateCopyData(stored) as Data == certificate.der)
        #expect(SecCertificateCopySubjectSummary(stored) as String? == "refs \(mode)")

        let identityQuery: [String: Any] = [
            kSecClass as String: kSecClassIdentity, kSecAttrLabel as String: "refs \(mode)",
            kSecReturnRef as String: true,
        ]
        #expect(
            SecItemCopyMatching(identityQuery as CFDictionary, &result) == errSecSuccess,
            "certificate + private key = identity")
        let identity = try #require(result as? SecIdentity)
        var identityCertificate: SecCertificate?
        var identityKey: SecKey?
        #expect(SecIdentityCopyCertificate(identity, &identityCertificate) == errSecSuccess)
        #expect(SecIdentityCopyPrivateKey(identity, &identityKey) == errSecSuccess)
        #expect(identityCertificate.map { SecCertificateCopyData($0) as Data } == certificate.der)
        #expect(
            identityKey.flatMap { SecKeyCopyExternalRepresentation($0, nil) as Data? } == certificate.privateKeyX963)

        #expect(
            SecItemDelete([kSecValueRef: made] as CFDictionary) == errSecSuccess,
            "a certificate made from data names its item")
        #expect(SecItemCopyMatching(found as CFDictionary, &result) == errSecItemNotFound)
        #expect(
            SecItemDelete([kSecClass: kSecClassKey, kSecValueRef: key] as CFDictionary) == errSecSuccess,
            "a key from the keychain names its item")
        #expect(
            SecItemAdd([kSecClass: kSecClassGenericPassword, kSecValueRef: made] as CFDictionary, nil) == errSecParam,
            "a ref of another class")
        let loose = try #require(
            SecKeyCreateWithData(
                certificate.privateKeyX963 as CFData,
                [
                    kSecAttrKeyType: kSecAttrKeyTypeEC,
                    kSecAttrKeyClass: kSecAttrKeyClassPrivate,
                ] as CFDictionary, nil))
        #expect(
            SecItemDelete([kSecValueRef: loose] as CFDictionary) == errSecItemNotFound,
            "a key from data names no item (never every key)")

        let lockedTag = Data(uniqueService("non-extractable").utf8)
        #expect(
            SecItemAdd(
                [
                    kSecClass: kSecClassKey, kSecAttrApplicationTag: lockedTag,
                    kSecAttrKeyClass: kSecAttrKeyClassSymmetric,
                    kSecAttrIsExtractable: false, kSecValueData: Data(repeating: 7, count: 32),
                ] as CFDictionary, nil) == errSecSuccess)
        #expect(
            SecItemCopyMatching(
                [kSecClass: kSecClassKey, kSecAttrApplicationTag: lockedTag, kSecReturnRef: true] as CFDictionary,
                &result) == errSecSuccess)
        let nonExtractable = try #require(result as? SecKey)
        #expect(
            SecKeyCopyExternalRepresentation(nonExtractable, &error) == nil && error != nil,
            "a key that is not extractable keeps its bytes")

        let service = uniqueService("genp-ref")
        #expect(
            SecItemAdd([kSecClass: kSecClassGenericPassword, kSecAttrService: service] as CFDictionary, nil)
                == errSecSuccess)
        result = nil
        #expect(
            SecItemCopyMatching(
                [kSecClass: kSecClassGenericPassword, kSecAttrService: service, kSecReturnRef: true] as CFDictionary,
                &result) == errSecSuccess)
        #expect(result == nil, "generic passwords have no ref object (docs/reference/keychain-semantics.md §4.2)")
    }

}
