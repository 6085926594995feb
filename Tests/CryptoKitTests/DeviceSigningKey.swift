import CryptoKit
import Foundation
import LocalAuthentication
import Security

// Written for iOS, and compiled here unchanged: no line of this file knows it runs on Linux.

/// The device-bound signing key of an app: made in the Secure Enclave behind Face ID (the current set of
/// faces), its `dataRepresentation` kept in the keychain as a generic password, loaded again to sign.
struct DeviceSigningKey {
    enum Failure: Error, Equatable { case keychain(OSStatus), noKey }

    var service = "com.example.device-signing"
    var account = "device-key"

    /// Makes the key and stores its data representation.
    func create(context: LAContext? = nil) throws -> SecureEnclave.P256.Signing.PrivateKey {
        var error: Unmanaged<CFError>?
        guard
            let access = SecAccessControlCreateWithFlags(
                kCFAllocatorDefault, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
                [.privateKeyUsage, .biometryCurrentSet], &error)
        else { throw error!.takeRetainedValue() as Error }
        let key = try SecureEnclave.P256.Signing.PrivateKey(accessControl: access, authenticationContext: context)
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
            kSecValueData as String: key.dataRepresentation,
        ]
        let status = SecItemAdd(item as CFDictionary, nil)
        guard status == errSecSuccess else { throw Failure.keychain(status) }
        return key
    }

    /// The stored key, or nil when none was made.
    func load(context: LAContext? = nil) throws -> SecureEnclave.P256.Signing.PrivateKey? {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
            kSecMatchLimit as String: kSecMatchLimitOne,
            kSecReturnData as String: true,
        ]
        var result: CFTypeRef?
        switch SecItemCopyMatching(query as CFDictionary, &result) {
        case errSecSuccess:
            guard let data = result as? Data else { throw Failure.keychain(errSecDecode) }
            return try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: data, authenticationContext: context)
        case errSecItemNotFound: return nil
        case let status: throw Failure.keychain(status)
        }
    }

    /// Signs `message` with the stored key (Face ID asks first).
    func sign(_ message: Data) throws -> P256.Signing.ECDSASignature {
        guard let key = try load() else { throw Failure.noKey }
        return try key.signature(for: message)
    }

    func delete() {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        _ = SecItemDelete(query as CFDictionary)
    }
}
