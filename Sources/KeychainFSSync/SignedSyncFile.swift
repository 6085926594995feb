import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium

/// The repository's item file of sync format 2: `KCS2`, the epoch (4 bytes), the writer's signing key (32),
/// the box's length (4) and the box (XChaCha20-Poly1305 under the epoch's item key, bound to the file's name
/// and epoch; inside, the padded record, whose mdat is its version), then an Ed25519 signature (64) by the
/// writer over a domain tag, the file's name and every byte before it.
package enum SignedSyncFile {
    static let magic = Data("KCS2".utf8)
    static let headerBytes = 4 + 4 + 32 + 4

    /// A file's parts before any key is used (a fuzz target).
    package struct Parts: Sendable {
        /// The epoch whose key sealed the box.
        package let epoch: Int
        /// The writer's signing key.
        package let signer: Data
        /// The sealed record.
        package let box: Data
        /// The writer's signature.
        package let signature: Data
        /// What the signature covers, but for the name.
        let signedPart: Data
    }

    /// Splits `bytes` into its parts.
    package static func parse(_ bytes: Data) throws(SyncFormatError) -> Parts {
        let bytes = Data(bytes)
        guard bytes.count >= headerBytes + Ed25519.signatureBytes else {
            if bytes.prefix(4) == SyncFile.magic {
                throw SyncFormatError("an unsigned item file (sync format 1); refused")
            }
            throw SyncFormatError("not a keychainfs signed item file")
        }
        guard bytes.prefix(4) == magic else {
            throw SyncFormatError(
                bytes.prefix(4) == SyncFile.magic
                    ? "an unsigned item file (sync format 1); refused" : "not a keychainfs signed item file")
        }
        let epoch = bytes[4..<8].reduce(0) { $0 << 8 | Int($1) }
        let length = bytes[40..<44].reduce(0) { $0 << 8 | Int($1) }
        guard epoch >= 1, length == bytes.count - headerBytes - Ed25519.signatureBytes else {
            throw SyncFormatError("the signed item file is truncated")
        }
        return Parts(
            epoch: epoch, signer: Data(bytes[8..<40]), box: Data(bytes[headerBytes..<headerBytes + length]),
            signature: Data(bytes.suffix(Ed25519.signatureBytes)),
            signedPart: Data(bytes.dropLast(Ed25519.signatureBytes)))
    }

    /// Seals and signs `record` as the file `name` in `epoch`.
    static func seal(_ record: SyncRecord, name: String, epoch: Int, itemKey: GuardedKey, identity: SyncIdentity)
        -> Data
    {
        var out = magic
        withUnsafeBytes(of: UInt32(epoch).bigEndian) { out.append(contentsOf: $0) }
        out.append(identity.keys.signingKey)
        let box = AEAD.seal(SyncFile.pad(record), key: itemKey, associatedData: binding(name, epoch))
        withUnsafeBytes(of: UInt32(box.count).bigEndian) { out.append(contentsOf: $0) }
        out.append(box)
        return out + identity.sign(signedMessage(name, out))
    }

    /// Whether `parts` carry a good signature of the file `name` by their signer.
    static func signatureHolds(_ parts: Parts, name: String) -> Bool {
        Ed25519.verify(parts.signature, of: signedMessage(name, parts.signedPart), publicKey: parts.signer)
    }

    /// The record in the box, opened with the epoch's item key.
    static func openBox(_ parts: Parts, name: String, itemKey: GuardedKey) throws(SyncFormatError) -> SyncRecord {
        do {
            return try SyncFile.unpad(
                try AEAD.open(parts.box, key: itemKey, associatedData: binding(name, parts.epoch)))
        } catch let error as SyncFormatError {
            throw error
        } catch {
            throw SyncFormatError("the item file does not open with its epoch's key (corrupted or renamed)")
        }
    }

    private static func signedMessage(_ name: String, _ part: Data) -> Data {
        Data("keychainfs.sync.record.v2\0\(name)\0".utf8) + part
    }
    static func binding(_ name: String, _ epoch: Int) -> Data { Data("keychainfs.sync.item.v2/\(epoch)/\(name)".utf8) }
}
