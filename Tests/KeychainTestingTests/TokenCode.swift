import Foundation
import LocalAuthentication
import Security

/// App code under test: a token in a generic password, as an iOS app keeps it.
enum TokenCode {
    static let service = "kit.token"

    static func save(_ token: String, account: String = "me", access: SecAccessControl? = nil) -> OSStatus {
        var add: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecValueData as String: Data(token.utf8),
        ]
        if let access { add[kSecAttrAccessControl as String] = access }
        return SecItemAdd(add as CFDictionary, nil)
    }

    static func read(account: String = "me", context: LAContext? = nil) -> (OSStatus, String?) {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecReturnData as String: true,
            kSecUseOperationPrompt as String: "Sign in to \(account)",
        ]
        if let context { query[kSecUseAuthenticationContext as String] = context }
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, (result as? Data).map { String(decoding: $0, as: UTF8.self) })
    }

    static func update(_ token: String, account: String = "me") -> OSStatus {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        return SecItemUpdate(query as CFDictionary, [kSecValueData as String: Data(token.utf8)] as CFDictionary)
    }

    /// The token's creation and modification dates.
    static func dates(account: String = "me") -> (created: Date, modified: Date)? {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecReturnAttributes as String: true,
        ]
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess,
            let attributes = result as? [String: Any],
            let created = attributes[kSecAttrCreationDate as String] as? Date,
            let modified = attributes[kSecAttrModificationDate as String] as? Date
        else { return nil }
        return (created, modified)
    }

    /// How many tokens the keychain in use holds (any account).
    static func count() -> Int {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecReturnAttributes as String: true, kSecMatchLimit as String: kSecMatchLimitAll,
        ]
        var result: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return 0 }
        return (result as? [Any])?.count ?? 0
    }

    /// Face ID: any enrolled face opens it.
    static func faceIDAccess() -> SecAccessControl? {
        SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .biometryAny, nil)
    }
}
