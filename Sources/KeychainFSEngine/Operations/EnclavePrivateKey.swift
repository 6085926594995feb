import Crypto
import Foundation
import KeychainFSModel
import KeychainFSStore
import KeychainFSTPM

/// A Secure Enclave private key once its seal opened: the simulator's scalar, or, in a vault whose device
/// key the TPM seals, a key made and used inside the TPM (docs/tpm.md, "Secure Enclave keys in the TPM").
/// Its sealed payload tells them apart: 32 bytes of scalar, or ``tpmMagic`` and the TPM object.
enum EnclavePrivateKey {
    case software(P256.Signing.PrivateKey)
    case tpm(blob: Data, binding: TPMBinding)

    static let tpmMagic = Data("kcTK".utf8)
    /// How many keys the TPM may make to find one whose public key has a compact form (half of them do).
    static let compactAttempts = 16

    /// A new key: its public key (x9.63) and the payload to seal. With a TPM the key is made inside it.
    static func make(compact: Bool, tpm binding: TPMBinding?) throws(KeychainError) -> (publicKey: Data, payload: Data)
    {
        guard let binding else {
            let key = P256.Signing.PrivateKey(compactRepresentable: compact)
            return (key.publicKey.x963Representation, key.rawRepresentation)
        }
        let tpm = try TPMConnection(tcti: binding.tctiInForce)
        for _ in 0..<(compact ? compactAttempts : 1) {
            let (blob, publicKey) = try tpm.createP256Key()
            let point = try? P256.Signing.PublicKey(x963Representation: publicKey)
            if !compact || point?.compactRepresentation != nil { return (publicKey, tpmMagic + blob) }
        }
        throw KeychainError(SecStatus.internalComponent, "the TPM made no key with a compact public key")
    }

    init(payload: Data, tpm binding: TPMBinding?) throws(KeychainError) {
        if payload.starts(with: Self.tpmMagic) {
            guard let binding else {
                throw KeychainError(SecStatus.decode, "the Secure Enclave key is a TPM's, and this vault names no TPM")
            }
            self = .tpm(blob: Data(payload.dropFirst(Self.tpmMagic.count)), binding: binding)
            return
        }
        do { self = .software(try P256.Signing.PrivateKey(rawRepresentation: payload)) } catch {
            throw .param("the Secure Enclave key is damaged")
        }
    }

    /// The DER ECDSA signature of `digest`.
    func signature(digest: Data) throws(KeychainError) -> Data {
        switch self {
        case .software(let key):
            do { return try key.signature(for: EnclaveDigest(bytes: [UInt8](digest))).derRepresentation } catch {
                throw KeychainError(SecStatus.internalComponent, "Secure Enclave signing failed")
            }
        case .tpm(let blob, let binding):
            guard [20, 32, 48, 64].contains(digest.count) else {
                throw .param("the TPM signs digests of 20, 32, 48 or 64 bytes (SHA-1, SHA-256, SHA-384, SHA-512)")
            }
            let tpm = try TPMConnection(tcti: binding.tctiInForce)
            let raw: Data
            do { raw = try tpm.signP256(blob: blob, digest: digest) } catch { throw Self.refusal(error, binding) }
            do { return try P256.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation } catch {
                throw KeychainError(SecStatus.internalComponent, "the TPM's signature is not P-256 ECDSA")
            }
        }
    }

    /// The ECDH shared secret (the shared point's x coordinate) with `peer`.
    func sharedSecret(with peer: P256.KeyAgreement.PublicKey) throws(KeychainError) -> Data {
        switch self {
        case .software(let key):
            do {
                let agreement = try P256.KeyAgreement.PrivateKey(rawRepresentation: key.rawRepresentation)
                return try agreement.sharedSecretFromKeyAgreement(with: peer).withUnsafeBytes { Data($0) }
            } catch {
                throw KeychainError(SecStatus.internalComponent, "Secure Enclave key exchange failed")
            }
        case .tpm(let blob, let binding):
            let tpm = try TPMConnection(tcti: binding.tctiInForce)
            do { return try tpm.ecdhP256(blob: blob, peer: peer.x963Representation) } catch {
                throw Self.refusal(error, binding)
            }
        }
    }

    static func refusal(_ failure: TPMFailure, _ binding: TPMBinding) -> KeychainError {
        switch failure.kind {
        case .notThisTPM:
            KeychainError(
                SecStatus.decode,
                "the Secure Enclave key was made by another TPM than \(binding.tctiInForce) (\(failure)): it is unusable here"
            )
        default:
            KeychainError(SecStatus.internalComponent, "\(binding.tctiInForce) cannot use the key: \(failure)")
        }
    }
}
