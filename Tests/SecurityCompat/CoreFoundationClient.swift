import CoreFoundation
import Foundation
import Security

// The same kind of code in a file that imports Foundation, CoreFoundation and Security together: the CF
// types CoreFoundation has are one type, its functions and constants are used where they apply. The
// names that bridge with `as` (CFDictionary, CFString, …) exist twice here, so this file writes them
// `Security.CFDictionary` (docs/swift-api.md).

func coreFoundationChecks() {
    var error: Unmanaged<CFError>?
    let access = SecAccessControlCreateWithFlags(
        kCFAllocatorDefault, kSecAttrAccessibleWhenUnlocked, .userPresence, &error)
    check(access != nil && error == nil, "SecAccessControlCreateWithFlags with CoreFoundation's kCFAllocatorDefault")
    check(
        CFGetTypeID(access!) == SecAccessControlGetTypeID(), "CFGetTypeID of a SecAccessControl beside CoreFoundation's"
    )

    _ = SecAccessControlCreateWithFlags(nil, "bogus" as NSString, [], &error)
    if let cfError = error?.takeRetainedValue() {
        check(
            CFErrorGetCode(cfError) == CFIndex(errSecParam), "CoreFoundation's CFErrorGetCode on the module's CFError")
        check(CFGetTypeID(cfError) == CFErrorGetTypeID(), "CoreFoundation's CFGetTypeID on the module's CFError")
        check(CFErrorGetDomain(cfError) as String == kCFErrorDomainOSStatus as String, "CFErrorGetDomain as String")
        check(Set([cfError, cfError]).count == 1, "CFError is Hashable")
    } else {
        check(false, "a bogus protection gives a CFError")
    }

    // CoreFoundation's own CFBoolean in a query.
    let service = freshService("corefoundation")
    let add: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
        kSecValueData as String: Data("cf".utf8), kSecReturnPersistentRef as String: kCFBooleanTrue as Any,
    ]
    var reference: CFTypeRef?
    check(
        SecItemAdd(add as Security.CFDictionary, &reference) == errSecSuccess && (reference as? Data)?.count == 20,
        "SecItemAdd with CoreFoundation's kCFBooleanTrue")
    let read: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
        kSecReturnData as String: kCFBooleanTrue as Any,
    ]
    var data: CFTypeRef?
    check(
        SecItemCopyMatching(read as Security.CFDictionary, &data) == errSecSuccess && data as? Data == Data("cf".utf8),
        "read back")
    let item: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
    check(SecItemDelete(item as Security.CFDictionary) == errSecSuccess, "deleted")
    let bundleKey = kCFBundleIdentifierKey as String
    check(
        Bundle.main.infoDictionary?[bundleKey] as? String == "com.example.keychainfs-compat",
        "kCFBundleIdentifierKey beside CoreFoundation's")
}
