import KeychainFSModel
import Foundation
import KeychainFSSodium

/// Seals and opens rows (docs/spec.md §3): attributes under the per-class metadata key, the secret under a
/// random per-row key that is itself wrapped by the class key; every box is bound to the item's
/// identity (class, UUID, protection class) so rows cannot be swapped or spliced.
package enum ItemSealer {
    package struct Keys {
        package let classKey: GuardedKey
        package let metadataKey: GuardedKey
        /// Guarded memory for the per-row key of the call in progress (reused: allocating guarded pages
        /// per item costs mmap/mprotect/munmap and TLB shootdowns). Only used under the keychain's lock.
        package let rowKey: GuardedKey
    }

    /// The boxes of a row, as their identities name them.
    package enum Box: String, CaseIterable {
        case metadata, rowKey = "rowkey", secret
    }

    /// What a box of a row is bound to: `keychainfs.item.v1/BOX/CLASS/PROTECTION/` and the row's UUID.
    package static func identity(_ classCode: String, _ uuid: Data, _ accessibility: Accessibility, _ box: Box)
        -> Data
    {
        var bytes = identityPrefix(classCode, accessibility, box)
        uuid.withUnsafeBytes { bytes.append(contentsOf: $0) }
        return Data(bytes)
    }

    /// ``identity(_:_:_:_:)``'s bytes before the UUID: made once per class, protection class and box
    /// (interpolated at every call, they were a tenth of opening a secret).
    private static func identityPrefix(_ classCode: String, _ accessibility: Accessibility, _ box: Box) -> [UInt8] {
        identityPrefixes[classCode]?[accessibility]?[box] ?? Array(prefixText(classCode, accessibility, box).utf8)
    }

    private static func prefixText(_ classCode: String, _ accessibility: Accessibility, _ box: Box) -> String {
        "keychainfs.item.v1/\(box.rawValue)/\(classCode)/\(accessibility.rawValue)/"
    }

    private static let identityPrefixes: [String: [Accessibility: [Box: [UInt8]]]] = Dictionary(
        uniqueKeysWithValues: Schema.storedClasses.map { schema in
            let byProtection = Accessibility.allCases.map { accessibility in
                (
                    accessibility,
                    Dictionary(
                        uniqueKeysWithValues: Box.allCases.map {
                            ($0, Array(prefixText(schema.code, accessibility, $0).utf8))
                        })
                )
            }
            return (schema.code, Dictionary(uniqueKeysWithValues: byProtection))
        })

    /// The metadata box also authenticates the row's lookup columns (in schema order): a column changed
    /// or swapped in the file fails decryption, so a query can never be answered with another item.
    package static func metadataBinding(
        _ classCode: String, _ uuid: Data, _ accessibility: Accessibility,
        _ lookups: [Data?]
    ) -> Data {
        binding(classCode, uuid, accessibility, lookups, shape: nil)
    }

    /// The metadata box's binding with the row's shape: whether it has a sealed secret, and its length. A
    /// secret column nulled, emptied or cut in the file then fails the metadata box (errSecDecode) instead
    /// of reading as "no data" (docs/security.md). Rows sealed before this binding carry
    /// ``metadataBinding(_:_:_:_:)`` alone and are opened with it (see ``openAttributes(_:schema:metadataKey:)``).
    package static func shapedBinding(
        _ classCode: String, _ uuid: Data, _ accessibility: Accessibility,
        _ lookups: [Data?], sealedSecret: Data?
    ) -> Data {
        binding(classCode, uuid, accessibility, lookups, shape: .some(sealedSecret?.count))
    }

    private static let shapeMarker = Array("/shape/".utf8)

    /// The identity prefix, the UUID, each lookup column (1 and its bytes, or 0 for NULL) and, for a shaped
    /// binding, `/shape/` and the secret's length (1 and 8 bytes little-endian, or 0 for none), written once
    /// into a buffer of their exact size: built in an array, copied into `Data` and extended again, it was
    /// a twelfth of a listing (measured).
    private static func binding(
        _ classCode: String, _ uuid: Data, _ accessibility: Accessibility, _ lookups: [Data?], shape: Int??
    ) -> Data {
        let prefix = identityPrefix(classCode, accessibility, .metadata)
        var count = prefix.count + uuid.count
        for lookup in lookups { count += 1 + (lookup?.count ?? 0) }
        if let secretLength = shape { count += shapeMarker.count + (secretLength == nil ? 1 : 9) }
        var binding = Data(count: count)
        binding.withUnsafeMutableBytes { out in
            var at = 0
            func put(_ bytes: UnsafeRawBufferPointer) {
                if let base = bytes.baseAddress, !bytes.isEmpty {
                    (out.baseAddress! + at).copyMemory(from: base, byteCount: bytes.count)
                }
                at += bytes.count
            }
            func put(_ byte: UInt8) {
                out[at] = byte
                at += 1
            }
            prefix.withUnsafeBytes { put($0) }
            uuid.withUnsafeBytes { put($0) }
            for lookup in lookups {
                if let hash = lookup {
                    put(1)
                    hash.withUnsafeBytes { put($0) }
                } else {
                    put(0)
                }
            }
            if let secretLength = shape {
                shapeMarker.withUnsafeBytes { put($0) }
                if let secretLength {
                    put(1)
                    withUnsafeBytes(of: UInt64(secretLength).littleEndian) { put($0) }
                } else {
                    put(0)
                }
            }
        }
        return binding
    }

    package static func seal(
        attributes: [String: KeychainValue], lookups: [Data?], secret: Data?, schema: ItemClassSchema, uuid: Data,
        accessibility: Accessibility, keys: Keys
    ) -> (metadata: Data, rowKey: Data, secret: Data?) {
        let classCode = schema.code
        let rowKey = keys.rowKey
        rowKey.randomize()
        defer { rowKey.zero() }
        let wrapped = rowKey.withBytes {
            AEAD.seal($0, key: keys.classKey, associatedData: identity(classCode, uuid, accessibility, .rowKey))
        }
        let sealedSecret = secret.map {
            AEAD.seal($0, key: rowKey, associatedData: identity(classCode, uuid, accessibility, .secret))
        }
        let metadata = AEAD.seal(
            ValueCodec.encode(.dictionary(attributes)), key: keys.metadataKey,
            associatedData: shapedBinding(classCode, uuid, accessibility, lookups, sealedSecret: sealedSecret))
        return (metadata, wrapped, sealedSecret)
    }

    /// `acceptingUnshaped`: whether a row sealed before the shape binding may still open (false once the
    /// vault has sealed every row again: a row that then opens only the old way was put back from an old copy).
    package static func openAttributes(
        _ row: StoredRow, schema: ItemClassSchema, metadataKey: GuardedKey,
        acceptingUnshaped: Bool
    ) throws(KeychainError) -> [String: KeychainValue] {
        let classCode = schema.code
        do {
            let plain: Data
            do {
                plain = try AEAD.open(
                    row.metadata, key: metadataKey,
                    associatedData: shapedBinding(
                        classCode, row.uuid, row.accessibility, row.lookups, sealedSecret: row.secret))
            } catch {
                // A row of an earlier release (format 2 and before): its box binds no shape. A row sealed
                // with the shape never opens this way, so its damage cannot pass as an older row.
                guard acceptingUnshaped else { throw error }
                plain = try AEAD.open(
                    row.metadata, key: metadataKey,
                    associatedData: metadataBinding(classCode, row.uuid, row.accessibility, row.lookups))
            }
            guard case .dictionary(let attributes) = try ValueCodec.decode(plain) else {
                throw ValueCodec.MalformedInput(reason: "not a dictionary")
            }
            return attributes
        } catch {
            throw KeychainError(
                SecStatus.decode,
                "item \(row.rowid) of class '\(classCode)' failed to decrypt (the vault was modified?): \(error)")
        }
    }

    /// The metadata box of `row` sealed again with its shape, for a row sealed before the shape was bound;
    /// nil when it already binds its shape. Throws errSecDecode when it opens with neither binding.
    package static func resealedWithShape(_ row: StoredRow, classCode: String, metadataKey: GuardedKey)
        throws(KeychainError) -> Data?
    {
        if (try? AEAD.open(
            row.metadata, key: metadataKey,
            associatedData: shapedBinding(
                classCode, row.uuid, row.accessibility, row.lookups,
                sealedSecret: row.secret))) != nil
        {
            return nil
        }
        guard
            let plain = try? AEAD.open(
                row.metadata, key: metadataKey,
                associatedData: metadataBinding(classCode, row.uuid, row.accessibility, row.lookups))
        else {
            throw KeychainError(
                SecStatus.decode,
                "item \(row.rowid) of class '\(classCode)' failed to decrypt (the vault was modified?)")
        }
        return AEAD.seal(
            plain, key: metadataKey,
            associatedData: shapedBinding(classCode, row.uuid, row.accessibility, row.lookups, sealedSecret: row.secret)
        )
    }

    package static func openSecret(_ row: StoredRow, classCode: String, keys: Keys) throws(KeychainError) -> Data? {
        guard let sealed = row.secret else { return nil }
        do {
            let rowKey = keys.rowKey
            try AEAD.openKey(
                row.rowKey, key: keys.classKey,
                associatedData: identity(classCode, row.uuid, row.accessibility, .rowKey), into: rowKey)
            defer { rowKey.zero() }
            return try AEAD.open(
                sealed, key: rowKey, associatedData: identity(classCode, row.uuid, row.accessibility, .secret))
        } catch {
            throw KeychainError(
                SecStatus.decode, "secret of item \(row.rowid) of class '\(classCode)' failed to decrypt: \(error)")
        }
    }
}
