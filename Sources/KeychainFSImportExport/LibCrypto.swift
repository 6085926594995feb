import KeychainFSCOpenSSL
import Foundation
import KeychainFSEngine
import KeychainFSModel
import Synchronization

/// What the import/export formats share of libcrypto: its providers, memory BIOs and the conversions
/// between its objects and the keychain's forms (certificates as DER, keys in Apple's external forms).
enum LibCrypto {
    private static let providersLoaded = Mutex(false)

    /// Loads the default and the legacy providers once: `openssl pkcs12 -legacy` files use RC2-40 and
    /// 3DES, which OpenSSL 3 keeps in the legacy provider.
    static func loadProviders() {
        providersLoaded.withLock { loaded in
            guard !loaded else { return }
            _ = OSSL_PROVIDER_load(nil, "legacy")
            _ = OSSL_PROVIDER_load(nil, "default")
            ERR_clear_error()  // a machine without the legacy module still reads modern files
            loaded = true
        }
    }

    /// The bytes written to a memory BIO by `write`; nil when `write` fails.
    static func written(_ write: (OpaquePointer) -> Bool) -> Data? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard write(bio) else { ERR_clear_error(); return nil }
        var pointer: UnsafeMutablePointer<CChar>?
        let length = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &pointer)
        guard length > 0, let pointer else { return Data() }
        return Data(bytes: pointer, count: length)
    }

    /// A read-only memory BIO over `data` for the length of `body`.
    static func reading<T>(_ data: Data, _ body: (OpaquePointer) -> T) -> T? {
        data.withUnsafeBytes { raw -> T? in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// A certificate's DER.
    static func der(of certificate: OpaquePointer) -> Data? {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(certificate, &out)
        guard length > 0, let out else { return nil }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Data(bytes: out, count: Int(length))
    }

    /// A certificate from its DER (the caller frees it with X509_free).
    static func certificate(_ der: Data) -> OpaquePointer? {
        der.withUnsafeBytes { raw in
            var cursor = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return d2i_X509(nil, &cursor, raw.count)
        }
    }

    /// A private key as the keychain keeps it (EC: x9.63 + scalar, RSA: PKCS#1), through its PKCS#8 PEM.
    static func keychainKey(_ key: OpaquePointer) throws(KeychainError) -> PEMImport.Item {
        guard let pem = written({ PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) == 1 }),
            let item = try PEMImport.items(in: pem).first, case .privateKey = item
        else {
            throw KeychainError(SecStatus.unknownFormat, "unsupported private key (EC P-256/384/521 and RSA are read)")
        }
        return item
    }

    /// A libcrypto key from the keychain's form (the caller frees it with EVP_PKEY_free).
    static func privateKey(_ item: PEMImport.Item) throws(KeychainError) -> OpaquePointer {
        guard case .privateKey(let type, _, let data) = item else {
            throw KeychainError(SecStatus.param, "not a private key")
        }
        let der: Data?
        switch type {
        case PEMImport.keyTypeEC: der = PEMImport.pkcs8(ecX963: data)
        case PEMImport.keyTypeRSA: der = data
        default: der = nil
        }
        let key: OpaquePointer? = der?.withUnsafeBytes { raw in
            var cursor = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return type == PEMImport.keyTypeRSA
                ? d2i_PrivateKey(EVP_PKEY_RSA, nil, &cursor, raw.count) : d2i_AutoPrivateKey(nil, &cursor, raw.count)
        }
        guard let key else {
            ERR_clear_error(); throw KeychainError(SecStatus.decode, "the private key could not be read")
        }
        return key
    }
}
