import Foundation

// Constructs the keychain wrappers (keychain-swift, SwiftKeychainWrapper, SimpleKeychain,
// KeychainAccess, Locksmith) write, in a file that imports only Foundation, as on Apple platforms.

/// keychain-swift's `clear()` on a non-iOS platform: kSecMatchLimitAll in SecItemDelete.
func removeAll(service: String) -> OSStatus {
    var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
    #if !os(iOS) && !os(watchOS) && !os(tvOS)
        query[kSecMatchLimit as String] = kSecMatchLimitAll
    #endif
    return SecItemDelete(query as CFDictionary)
}

/// KeychainAccess's `extension CFError { var error: NSError }`.
extension CFError {
    var asNSError: NSError {
        let domain = CFErrorGetDomain(self) as String
        let code = CFErrorGetCode(self)
        let userInfo = CFErrorCopyUserInfo(self) as! [String: Any]
        return NSError(domain: domain, code: code, userInfo: userInfo)
    }
}

func foundationOnlyChecks() {
    // Bundle id from an Info.plist beside the executable (SimpleKeychain and KeychainAccess default to it).
    let bundleID = Bundle.main.infoDictionary?[kCFBundleIdentifierKey as String] as? String
    check(
        bundleID == "com.example.keychainfs-compat" && Bundle.main.bundleIdentifier == bundleID,
        "bundle id from Info.plist", "\(String(describing: bundleID))")

    // CFError from a Security call, introspected and thrown as a Swift error.
    var error: Unmanaged<CFError>?
    let refused = SecAccessControlCreateWithFlags(kCFAllocatorDefault, "bogus" as CFString, [], &error)
    if refused == nil, let cfError = error?.takeRetainedValue() {
        check(
            CFErrorGetDomain(cfError) as String == kCFErrorDomainOSStatus as String, "CFErrorGetDomain",
            "\(CFErrorGetDomain(cfError) as String)")
        check(CFErrorGetCode(cfError) == Int(errSecParam), "CFErrorGetCode")
        check(
            (CFErrorCopyDescription(cfError) as String).contains("protection class"), "CFErrorCopyDescription",
            CFErrorCopyDescription(cfError) as String)
        check(
            cfError.asNSError.code == Int(errSecParam) && cfError.asNSError.domain == "NSOSStatusErrorDomain",
            "CFErrorCopyUserInfo into NSError")
        let thrown = cfError as Error as NSError
        check(
            thrown.code == Int(errSecParam) && thrown.domain == kCFErrorDomainOSStatus as String,
            "CFError as Error as NSError", "\(thrown)")
        check(CFGetTypeID(cfError) == CFErrorGetTypeID(), "CFGetTypeID of a CFError")
    } else {
        check(false, "SecAccessControlCreateWithFlags refuses a bogus protection with a CFError")
    }

    // A SecAccessControl in a [String: AnyHashable] base query (Hashable, CFEqual semantics), then added.
    let service = freshService("anyhashable")
    var query: [String: AnyHashable] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
        kSecAttrAccount as String: "a",
    ]
    query[kSecAttrAccessControl as String] = SecAccessControlCreateWithFlags(
        nil, kSecAttrAccessibleAfterFirstUnlock, [], nil)
    check(
        query[kSecAttrAccessControl as String]
            == AnyHashable(SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleAfterFirstUnlock, [], nil)!),
        "equal access-control objects are equal")
    var add = query
    add[kSecValueData as String] = Data("secret".utf8)
    check(
        SecItemAdd(add as CFDictionary, nil) == errSecSuccess,
        "SecItemAdd of a [String: AnyHashable] query with a SecAccessControl")
    var result: CFTypeRef?
    let read: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
        kSecReturnData as String: kCFBooleanTrue!, kSecReturnAttributes as String: true,
    ]
    check(
        SecItemCopyMatching(read as CFDictionary, &result) == errSecSuccess
            && (result as? [String: Any])?[kSecAttrAccessible as String] as? String
                == kSecAttrAccessibleAfterFirstUnlock as String,
        "the item took the access control's protection class")

    // Keys are refs with a type id, Hashable.
    var keyError: Unmanaged<CFError>?
    var bytes = [UInt8](repeating: 0, count: 32)
    check(
        SecRandomCopyBytes(kSecRandomDefault, bytes.count, &bytes) == errSecSuccess
            && bytes != [UInt8](repeating: 0, count: 32), "SecRandomCopyBytes")
    var again = [UInt8](repeating: 0, count: 32)
    _ = SecRandomCopyBytes(kSecRandomDefault, again.count, &again)
    check(again != bytes, "SecRandomCopyBytes draws fresh bytes")
    let keyAttributes: [String: Any] = [
        kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
    ]
    let generated = SecKeyCreateRandomKey(
        [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256] as CFDictionary, &keyError)
    let keyBytes = generated.flatMap { SecKeyCopyExternalRepresentation($0, nil) as Data? } ?? Data()
    if let key = SecKeyCreateWithData(keyBytes as CFData, keyAttributes as CFDictionary, &keyError),
        let twin = SecKeyCreateWithData(keyBytes as CFData, keyAttributes as CFDictionary, nil)
    {
        check(
            CFGetTypeID(key) == SecKeyGetTypeID() && CFGetTypeID(key as CFTypeRef) == SecKeyGetTypeID(),
            "CFGetTypeID of a SecKey")
        check(Set<AnyHashable>([key, twin]).count == 1, "SecKeys with the same bytes are equal")
    } else {
        check(false, "SecKeyCreateWithData", "\(String(describing: keyError))")
    }

    // NSError() as Apple's Foundation has it, beside NSError(domain:code:userInfo:).
    let empty = NSError()
    let full = NSError(domain: "com.example", code: 7, userInfo: nil)
    check(
        empty.code == 0 && empty.domain == "" && full.code == 7 && full.domain == "com.example",
        "NSError() and NSError(domain:code:userInfo:)")

    // removeAll through the macOS branch: kSecMatchLimitAll accepted; kSecMatchLimitOne refused, nothing deleted.
    let many = freshService("remove-all")
    for account in ["a", "b", "c"] {
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: many,
            kSecAttrAccount as String: account,
        ]
        _ = SecItemAdd(item as CFDictionary, nil)
    }
    let one: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: many,
        kSecMatchLimit as String: kSecMatchLimitOne,
    ]
    check(SecItemDelete(one as CFDictionary) == errSecParam, "SecItemDelete with kSecMatchLimitOne is errSecParam")
    let all: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: many,
        kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true,
    ]
    var listed: CFTypeRef?
    check(
        SecItemCopyMatching(all as CFDictionary, &listed) == errSecSuccess && (listed as? [[String: Any]])?.count == 3,
        "nothing was deleted by the refused delete")
    check(removeAll(service: many) == errSecSuccess, "SecItemDelete with kSecMatchLimitAll")
    check(SecItemCopyMatching(all as CFDictionary, &listed) == errSecItemNotFound, "every item went")
}
