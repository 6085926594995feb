import Foundation
import KeychainFSCTPM
import KeychainFSModel

/// P-256 keys made and used inside the TPM (docs/tpm.md, "Secure Enclave keys in the TPM"): the Secure
/// Enclave's keys of a vault whose device key the TPM seals. Only the TPM-wrapped object leaves it.
extension TPMConnection {
    /// A new key: its object (TPM2B_PUBLIC ‖ TPM2B_PRIVATE) and public key (x9.63, 65 bytes).
    package func createP256Key() throws(KeychainError) -> (blob: Data, publicKey: Data) {
        let made = call { handle -> (UInt32, Data, Data) in
            var blob = [UInt8](repeating: 0, count: Self.blobCapacity)
            var size = 0
            var x = [UInt8](repeating: 0, count: 32)
            var y = [UInt8](repeating: 0, count: 32)
            let rc = keychainfs_tpm_create_p256(handle, &blob, blob.count, &size, &x, &y)
            return (rc, Data(blob.prefix(size)), Data([0x04] + x + y))
        }
        guard let (rc, blob, publicKey) = made else {
            throw KeychainError(SecStatus.notAvailable, "the TPM at '\(tcti)' \(TPMDeadline.message)")
        }
        guard rc == 0 else {
            throw KeychainError(SecStatus.internalComponent, "the TPM cannot make a P-256 key: \(Self.describe(rc))")
        }
        return (blob, publicKey)
    }

    /// ECDSA over `digest` (20, 32, 48 or 64 bytes) with the key of `blob`, in the TPM: r ‖ s.
    package func signP256(blob: Data, digest: Data) throws(TPMFailure) -> Data {
        let signed = call { handle -> (UInt32, Data) in
            var r = [UInt8](repeating: 0, count: 32)
            var s = [UInt8](repeating: 0, count: 32)
            let rc = blob.withUnsafeBytes { key in
                digest.withUnsafeBytes { message in
                    keychainfs_tpm_sign_p256(
                        handle, key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count,
                        message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count, &r, &s)
                }
            }
            return (rc, Data(r + s))
        }
        guard let (rc, signature) = signed else { throw TPMFailure(TPMFailure.timedOut) }
        guard rc == 0 else { throw TPMFailure(rc) }
        return signature
    }

    /// ECDH of the key of `blob` with the peer's point (x9.63, 65 bytes), in the TPM: the shared x coordinate.
    package func ecdhP256(blob: Data, peer: Data) throws(TPMFailure) -> Data {
        precondition(peer.count == 65 && peer.first == 0x04, "an uncompressed P-256 point")
        let x = [UInt8](peer.dropFirst().prefix(32))
        let y = [UInt8](peer.suffix(32))
        let agreed = call { handle -> (UInt32, Data) in
            var shared = [UInt8](repeating: 0, count: 32)
            let rc = blob.withUnsafeBytes { key in
                keychainfs_tpm_ecdh_p256(
                    handle, key.baseAddress?.assumingMemoryBound(to: UInt8.self), key.count, x, y, &shared)
            }
            defer { shared.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
            return (rc, Data(shared))
        }
        guard let (rc, secret) = agreed else { throw TPMFailure(TPMFailure.timedOut) }
        guard rc == 0 else { throw TPMFailure(rc) }
        return secret
    }
}
