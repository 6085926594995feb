import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium

/// The sealed file of `keychainfs backup`: `KCFSBAK1`, a hardness byte, an Argon2id salt, then one AEAD
/// box (XChaCha20-Poly1305) under the key Argon2id derives from the backup password, with the header as
/// associated data. Inside: the items as a ValueCodec array of {class, uuid, attributes, secret}.
/// Nothing in it depends on the device key, so it restores on another device, as Apple's encrypted backups do.
enum BackupArchive {
    static let magic = Data("KCFSBAK1".utf8)

    /// One item as carried in a backup.
    struct Item {
        var classCode: String
        var uuid: Data
        var attributes: [String: KeychainValue]
        var secret: Data?
    }

    /// Seals `items` under `password`; the plaintext encoding is wiped before this returns.
    static func seal(_ items: [Item], password: Data, hardness: PasscodeHardness) throws(KeychainError) -> Data {
        let salt = Sodium.randomBytes(KeyDerivation.saltBytes)
        let header = magic + Data([hardness.byte]) + salt
        let key = try derive(password, salt: salt, hardness: hardness)
        defer { key.wipe() }
        var plain = ValueCodec.encode(
            .array(
                items.map { item in
                    var d: KeychainDictionary = [
                        QueryKey.class: .string(item.classCode), "uuid": .data(item.uuid),
                        "attributes": .dictionary(item.attributes),
                    ]
                    if let secret = item.secret { d["secret"] = .data(secret) }
                    return .dictionary(d)
                }))
        defer { Sodium.wipe(&plain) }
        return header + AEAD.seal(plain, key: key, associatedData: header)
    }

    /// Opens a backup: a wrong password or a damaged file is errSecAuthFailed / errSecDecode, never a partial list.
    static func open(_ file: Data, password: Data) throws(KeychainError) -> [Item] {
        let headerBytes = magic.count + 1 + KeyDerivation.saltBytes
        guard file.count > headerBytes, file.prefix(magic.count) == magic else {
            throw KeychainError(SecStatus.decode, "not a keychainfs backup (no KCFSBAK1 header)")
        }
        let header = Data(file.prefix(headerBytes))
        guard let hardness = PasscodeHardness(byte: header[header.startIndex + magic.count]) else {
            throw KeychainError(SecStatus.decode, "the backup names an unknown Argon2id strength")
        }
        let salt = header.suffix(KeyDerivation.saltBytes)
        let key = try derive(password, salt: Data(salt), hardness: hardness)
        defer { key.wipe() }
        var plain: Data
        do { plain = try AEAD.open(Data(file.dropFirst(headerBytes)), key: key, associatedData: header) } catch {
            throw KeychainError(
                SecStatus.authFailed, "the backup password is not correct, or the backup file is damaged")
        }
        defer { Sodium.wipe(&plain) }
        guard case .array(let entries) = try? ValueCodec.decode(plain) else {
            throw KeychainError(SecStatus.decode, "the backup's content is malformed")
        }
        var items: [Item] = []
        for entry in entries {
            guard let d = entry.dictionaryValue, let classCode = d[QueryKey.class]?.stringValue,
                let uuid = d["uuid"]?.dataValue, uuid.count == 16,
                let attributes = d["attributes"]?.dictionaryValue
            else {
                throw KeychainError(SecStatus.decode, "the backup holds a malformed item")
            }
            items.append(Item(classCode: classCode, uuid: uuid, attributes: attributes, secret: d["secret"]?.dataValue))
        }
        return items
    }

    private static func derive(_ password: Data, salt: Data, hardness: PasscodeHardness) throws(KeychainError)
        -> GuardedKey
    {
        guard !password.isEmpty, password.count <= 1024 else {
            throw .param("a backup password must be 1 to 1024 bytes long")
        }
        do { return try KeyDerivation.passcodeKey(password, salt: salt, hardness: hardness) } catch {
            throw KeychainError(SecStatus.allocate, "Argon2id failed: \(error)")
        }
    }
}

extension PasscodeHardness {
    /// The byte a backup header records it as.
    var byte: UInt8 { self == .interactive ? 1 : 2 }

    init?(byte: UInt8) {
        switch byte {
        case 1: self = .interactive
        case 2: self = .moderate
        default: return nil
        }
    }
}
