import Foundation
import SodiumCrypto

/// Seals and opens rows (SPEC §3): attributes under the per-class metadata key, the secret under a
/// random per-row key that is itself wrapped by the class key; every box is bound to the item's
/// identity (class, UUID, protection class) so rows cannot be swapped or spliced.
enum ItemSealer {
    struct Keys {
        let classKey: GuardedKey
        let metadataKey: GuardedKey
        /// Guarded memory for the per-row key of the call in progress (reused: allocating guarded pages
        /// per item costs mmap/mprotect/munmap and TLB shootdowns). Only used under the keychain's lock.
        let rowKey: GuardedKey
    }

    static func identity(_ classCode: String, _ uuid: Data, _ accessibility: Accessibility, part: String) -> Data {
        Data("keychainfs.item.v1/\(part)/\(classCode)/\(accessibility.rawValue)/".utf8) + uuid
    }

    static func seal(attributes: [String: KeychainValue], secret: Data?, classCode: String, uuid: Data,
                     accessibility: Accessibility, keys: Keys) -> (metadata: Data, rowKey: Data, secret: Data?) {
        let metadata = AEAD.seal(ValueCodec.encode(.dictionary(attributes)), key: keys.metadataKey,
                                 associatedData: identity(classCode, uuid, accessibility, part: "metadata"))
        let rowKey = keys.rowKey
        rowKey.randomize()
        defer { rowKey.zero() }
        let wrapped = rowKey.withBytes { AEAD.seal($0, key: keys.classKey, associatedData: identity(classCode, uuid, accessibility, part: "rowkey")) }
        let sealedSecret = secret.map { AEAD.seal($0, key: rowKey, associatedData: identity(classCode, uuid, accessibility, part: "secret")) }
        return (metadata, wrapped, sealedSecret)
    }

    static func openAttributes(_ row: StoredRow, classCode: String, metadataKey: GuardedKey) throws(KeychainError) -> [String: KeychainValue] {
        do {
            let plain = try AEAD.open(row.metadata, key: metadataKey, associatedData: identity(classCode, row.uuid, row.accessibility, part: "metadata"))
            guard case .dictionary(let attributes) = try ValueCodec.decode(plain) else { throw ValueCodec.MalformedInput(reason: "not a dictionary") }
            return attributes
        } catch {
            throw KeychainError(SecStatus.decode, "item \(row.rowid) of class '\(classCode)' failed to decrypt: \(error)")
        }
    }

    static func openSecret(_ row: StoredRow, classCode: String, keys: Keys) throws(KeychainError) -> Data? {
        guard let sealed = row.secret else { return nil }
        do {
            let rowKey = keys.rowKey
            try AEAD.openKey(row.rowKey, key: keys.classKey, associatedData: identity(classCode, row.uuid, row.accessibility, part: "rowkey"), into: rowKey)
            defer { rowKey.zero() }
            return try AEAD.open(sealed, key: rowKey, associatedData: identity(classCode, row.uuid, row.accessibility, part: "secret"))
        } catch {
            throw KeychainError(SecStatus.decode, "secret of item \(row.rowid) of class '\(classCode)' failed to decrypt: \(error)")
        }
    }
}
