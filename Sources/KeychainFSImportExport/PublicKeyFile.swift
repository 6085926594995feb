import KeychainFSCOpenSSL
import Crypto
import Foundation
import KeychainFSEngine
import KeychainFSModel

/// Public keys as files: SubjectPublicKeyInfo (`PUBLIC KEY`), as `openssl pkey -pubout` writes it.
package enum PublicKeyFile {
    /// A public key in Apple's external form (EC: x9.63 04 ‖ X ‖ Y; RSA: PKCS#1), as SubjectPublicKeyInfo DER
    /// or PEM; errSecUnknownFormat for anything else.
    package static func encode(type: Int64, data: Data, pem: Bool) throws(KeychainError) -> Data {
        let der: Data?
        switch type {
        case PEMImport.keyTypeEC:
            der =
                (try? P256.Signing.PublicKey(x963Representation: data).derRepresentation)
                ?? (try? P384.Signing.PublicKey(x963Representation: data).derRepresentation)
                ?? (try? P521.Signing.PublicKey(x963Representation: data).derRepresentation)
        case PEMImport.keyTypeRSA:
            der = rsaSubjectPublicKeyInfo(data)
        default:
            der = nil
        }
        guard let der else {
            throw KeychainError(
                SecStatus.unknownFormat, "unsupported public key (EC P-256/384/521 and RSA are written)")
        }
        return pem ? Data(PEMImport.pem(der, label: "PUBLIC KEY").utf8) : der
    }

    private static func rsaSubjectPublicKeyInfo(_ pkcs1: Data) -> Data? {
        defer { ERR_clear_error() }
        let key: OpaquePointer? = pkcs1.withUnsafeBytes { raw in
            var cursor = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return d2i_PublicKey(EVP_PKEY_RSA, nil, &cursor, raw.count)
        }
        guard let key else { return nil }
        defer { EVP_PKEY_free(key) }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(key, &out)
        guard length > 0, let out else { return nil }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Data(bytes: out, count: Int(length))
    }
}
