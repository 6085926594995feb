import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium

/// SecAccessControl's `.applicationPassword` (docs/authentication-table.md, rule 8): the secret of such an
/// item is sealed once more, inside its row's usual boxes, under a key derived (Argon2id) from the password
/// the app gave with `LAContext.setCredential(_:type: .applicationPassword)`. The password is checked by
/// opening that box, as on Apple where it derives the item's key: nothing that could verify it is stored,
/// and neither the vault's keys nor the device passcode open the secret without it.
///
/// The envelope travels as the item's secret (backups and sync carry it sealed); its format is
/// `"kcfs-apw1" ‖ salt (16) ‖ AEAD box`, the box bound to the magic and salt.
enum ApplicationPassword {
    private static let magic = Data("kcfs-apw1".utf8)

    /// Whether an item's `accc` asks for an application password.
    static func protects(_ attributes: [String: KeychainValue]) -> Bool {
        AccessConstraint(attributes: attributes)?.passwordRequired ?? false
    }

    static let missing = KeychainError(
        SecStatus.authFailed,
        "the item needs its application password (LAContext.setCredential(_:type: .applicationPassword))")

    /// `secret` sealed under `password`; errSecAuthFailed without a password.
    static func seal(_ secret: Data, password: Data?) throws(KeychainError) -> Data {
        guard let password else { throw missing }
        let salt = Sodium.randomBytes(KeyDerivation.saltBytes)
        let key = try derive(password, salt: salt)
        defer { key.wipe() }
        return magic + salt + AEAD.seal(secret, key: key, associatedData: magic + salt)
    }

    /// The secret inside `envelope`: errSecAuthFailed without the password or with a wrong one,
    /// errSecDecode when the envelope is not one.
    static func open(_ envelope: Data, password: Data?) throws(KeychainError) -> Data {
        guard let password else { throw missing }
        let header = magic.count + KeyDerivation.saltBytes
        guard envelope.count > header, envelope.prefix(magic.count) == magic else {
            throw KeychainError(SecStatus.decode, "the item's secret is not sealed with an application password")
        }
        let start = envelope.startIndex
        let salt = Data(envelope[(start + magic.count)..<(start + header)])
        let key = try derive(password, salt: salt)
        defer { key.wipe() }
        do {
            return try AEAD.open(Data(envelope[(start + header)...]), key: key, associatedData: magic + salt)
        } catch {
            throw KeychainError(SecStatus.authFailed, "the application password is not the item's")
        }
    }

    /// The secret to store when an update changes an item from `old` to `new` attributes: kept sealed as it
    /// is when neither the secret nor the password requirement changes; otherwise the old secret is opened
    /// with `password` (which checks it) and the value to keep sealed again if `new` asks for a password.
    /// `stored` is asked only when the old secret is needed: new data without a password on either side
    /// replaces it unread (measured: an update of a value decrypted the old one for nothing).
    static func restate(
        _ stored: () throws(KeychainError) -> Data?, from old: [String: KeychainValue],
        to new: [String: KeychainValue], newData: Data?, password: Data?
    ) throws(KeychainError) -> Data? {
        let was = protects(old), will = protects(new)
        guard was || will else {
            if let newData { return newData }
            return try stored()
        }
        if was, will, newData == nil, old[Attributes.accessControl.code] == new[Attributes.accessControl.code] {
            return try stored()
        }
        let plain = try stored().map { s throws(KeychainError) in was ? try open(s, password: password) : s }
        guard let value = newData ?? plain else { return nil }
        return will ? try seal(value, password: password) : value
    }

    private static func derive(_ password: Data, salt: Data) throws(KeychainError) -> GuardedKey {
        do { return try KeyDerivation.applicationPasswordKey(password, salt: salt) } catch {
            throw KeychainError(SecStatus.allocate, "the application password's key could not be derived: \(error)")
        }
    }
}
