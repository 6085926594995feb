// Keychain code written the way iOS apps write it (seeds 000, 001, 004), compiled unchanged against
// keychainfs's `Security` module in Swift 5 and Swift 6 language modes.
import Foundation
import Security

/// An error enum built from OSStatus.
enum KeychainError: Error, Equatable {
    case itemNotFound
    case duplicateItem
    case interactionNotAllowed
    case unexpectedData
    case unhandled(OSStatus)

    init(status: OSStatus) {
        switch status {
        case errSecItemNotFound: self = .itemNotFound
        case errSecDuplicateItem: self = .duplicateItem
        case errSecInteractionNotAllowed: self = .interactionNotAllowed
        default: self = .unhandled(status)
        }
    }

    static func message(_ status: OSStatus) -> String {
        (SecCopyErrorMessageString(status, nil) as String?) ?? "Unknown"
    }
}

/// Generic passwords of one service: add-or-update, load, list, delete.
struct GenericPasswordStore: Sendable {
    let service: String

    func save(
        _ password: String, account: String, accessible: CFString = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
    ) throws {
        let baseQuery: [CFString: Any] = [
            kSecClass: kSecClassGenericPassword,
            kSecAttrService: service,
            kSecAttrAccount: account,
        ]
        var addQuery = baseQuery
        addQuery[kSecValueData] = Data(password.utf8)
        addQuery[kSecAttrAccessible] = accessible
        let addStatus = SecItemAdd(addQuery as CFDictionary, nil)
        switch addStatus {
        case errSecSuccess:
            return
        case errSecDuplicateItem:
            let updates: [CFString: Any] = [kSecValueData: Data(password.utf8)]
            let updateStatus = SecItemUpdate(baseQuery as CFDictionary, updates as CFDictionary)
            guard updateStatus == errSecSuccess else { throw KeychainError(status: updateStatus) }
        default:
            throw KeychainError(status: addStatus)
        }
    }

    func load(account: String) throws -> String? {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecMatchLimit as String: kSecMatchLimitOne,
            kSecReturnData as String: true,
        ]
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        switch status {
        case errSecSuccess:
            guard let data = result as? Data else { throw KeychainError.unexpectedData }
            return String(data: data, encoding: .utf8)
        case errSecItemNotFound:
            return nil
        default:
            throw KeychainError(status: status)
        }
    }

    /// Every account, via an NSDictionary literal and an AnyObject? out-parameter.
    func accounts() throws -> [String] {
        let query =
            [
                kSecClass: kSecClassGenericPassword,
                kSecAttrService: service,
                kSecMatchLimit: kSecMatchLimitAll,
                kSecReturnAttributes: true,
            ] as NSDictionary
        var result: AnyObject?
        let status = SecItemCopyMatching(query, &result)
        if status == errSecItemNotFound { return [] }
        guard status == errSecSuccess else { throw KeychainError(status: status) }
        guard let items = result as? [[String: Any]] else { throw KeychainError.unexpectedData }
        return items.compactMap { $0[kSecAttrAccount as String] as? String }
    }

    func delete(account: String) throws {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        let status = SecItemDelete(query as CFDictionary)
        guard status == errSecSuccess || status == errSecItemNotFound else { throw KeychainError(status: status) }
    }
}

/// Keys found by application tag (seed 002 (docs/sources.md)): stored from a SecKey with kSecValueRef, read back as one
/// with kSecReturnRef.
struct TaggedKeyStore: Sendable {
    let tag: Data

    func store(privateKeyX963: Data) throws {
        var error: Unmanaged<CFError>?
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate,
        ]
        guard let key = SecKeyCreateWithData(privateKeyX963 as CFData, attributes as CFDictionary, &error) else {
            throw error!.takeRetainedValue() as Error
        }
        let addquery: [String: Any] = [
            kSecClass as String: kSecClassKey,
            kSecAttrApplicationTag as String: tag,
            kSecValueRef as String: key,
        ]
        let status = SecItemAdd(addquery as CFDictionary, nil)
        guard status == errSecSuccess else { throw KeychainError(status: status) }
    }

    func load() throws -> SecKey {
        let getquery: [String: Any] = [
            kSecClass as String: kSecClassKey,
            kSecAttrApplicationTag as String: tag,
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecReturnRef as String: true,
        ]
        var item: CFTypeRef?
        let status = SecItemCopyMatching(getquery as CFDictionary, &item)
        guard status == errSecSuccess else { throw KeychainError(status: status) }
        return item as! SecKey
    }
}

/// An actor-isolated manager keeps SecItem calls off the main actor.
actor KeychainManager {
    private let store: GenericPasswordStore

    init(service: String) {
        store = GenericPasswordStore(service: service)
    }

    func save(_ token: String, for account: String) throws {
        try store.save(token, account: account)
    }

    func token(for account: String) throws -> String? {
        try store.load(account: account)
    }
}
