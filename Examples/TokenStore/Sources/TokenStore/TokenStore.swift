import Foundation
import LocalAuthentication
import Security

/// An app's sign-in tokens in the keychain: one generic password per account, optionally behind Face ID.
/// The same code builds against Apple's Security framework and against keychainfs's module.
public struct TokenStore: Sendable {
    /// Why a token could not be read or written, from the keychain's status.
    public enum Failure: Error, Equatable {
        /// The device is locked (errSecInteractionNotAllowed): try again later, never delete the token.
        case locked
        case notFound
        /// The user canceled the Face ID sheet.
        case canceled
        /// Face ID did not match, or is locked out.
        case notRecognized
        /// The app lacks the access group (errSecMissingEntitlement).
        case missingEntitlement
        case other(OSStatus)

        init(_ status: OSStatus) {
            self =
                switch status {
                case errSecInteractionNotAllowed: .locked
                case errSecItemNotFound: .notFound
                case errSecUserCanceled: .canceled
                case errSecAuthFailed: .notRecognized
                case errSecMissingEntitlement: .missingEntitlement
                default: .other(status)
                }
        }
    }

    public let service: String
    /// The access group the tokens live in; nil: the app's default (its first group).
    public let accessGroup: String?

    public init(service: String = "com.example.tokens", accessGroup: String? = nil) {
        self.service = service
        self.accessGroup = accessGroup
    }

    /// Saves (or replaces) `token` for `account`: readable after the first unlock (background refreshes
    /// need it), or, with `faceID`, only while unlocked and after a Face ID match.
    public func save(_ token: String, account: String, faceID: Bool = false) throws(Failure) {
        var item = query(account)
        item[kSecValueData as String] = Data(token.utf8)
        if faceID {
            item[kSecAttrAccessControl as String] = SecAccessControlCreateWithFlags(
                nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .biometryCurrentSet, nil)
        } else {
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
        }
        var status = SecItemAdd(item as CFDictionary, nil)
        if status == errSecDuplicateItem {
            status = SecItemDelete(query(account) as CFDictionary)
            if status == errSecSuccess { status = SecItemAdd(item as CFDictionary, nil) }
        }
        guard status == errSecSuccess else { throw Failure(status) }
    }

    /// The token for `account`; a Face ID token asks with `reason`.
    public func load(account: String, reason: String = "Sign in") throws(Failure) -> String {
        var search = query(account)
        search[kSecReturnData as String] = true
        search[kSecUseOperationPrompt as String] = reason
        var result: CFTypeRef?
        let status = SecItemCopyMatching(search as CFDictionary, &result)
        guard status == errSecSuccess, let data = result as? Data else { throw Failure(status) }
        return String(decoding: data, as: UTF8.self)
    }

    /// Signs out of `account`.
    public func delete(account: String) throws(Failure) {
        let status = SecItemDelete(query(account) as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw Failure(status) }
    }

    private func query(_ account: String) -> [String: Any] {
        var query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        return query
    }
}
