import KeychainFSCOpenSSL
import Crypto
import Foundation
import KeychainFSEngine
import KeychainFSModel

/// PKCS#12 (`.p12`, `.pfx`) through the system's OpenSSL 3 libcrypto: what `security import` and
/// `SecPKCS12Import` read, and what `security export -f pkcs12` writes. Files made by `openssl pkcs12`
/// with OpenSSL 3's default encryption (AES-256-CBC, PBKDF2, a SHA-256 MAC) and with `-legacy` (RC2-40 and
/// 3DES, a SHA-1 MAC) both read.
package enum PKCS12File {
    /// What one file holds: an identity (a private key and its certificate) and the rest of the chain.
    package struct Contents: Sendable {
        /// The private key, as the keychain keeps it.
        package var privateKey: PEMImport.Item
        /// The key's certificate (DER).
        package var certificate: Data
        /// The other certificates (DER), in the file's order.
        package var chain: [Data]
        /// The friendlyName of the certificate's bag (kSecImportItemLabel).
        package var friendlyName: String?
        /// The localKeyId of the certificate's bag (kSecImportItemKeyID).
        package var localKeyID: Data?
    }

    /// Reads `data` with `passphrase`: errSecAuthFailed for a wrong passphrase, errSecDecode for bytes that
    /// are not PKCS#12, errSecUnknownFormat for a file without a private key and its certificate,
    /// errSecParam for a file asking more key-derivation work than ``KeyDerivationLimit`` allows.
    package static func read(_ data: Data, passphrase: String) throws(KeychainError) -> Contents {
        LibCrypto.loadProviders()
        defer { ERR_clear_error() }
        let parsed: OpaquePointer? = data.withUnsafeBytes { raw in
            var cursor = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return d2i_PKCS12(nil, &cursor, raw.count)
        }
        guard let p12 = parsed else { throw KeychainError(SecStatus.decode, "not a PKCS#12 file") }
        defer { PKCS12_free(p12) }
        // Every derivation is checked before it runs: the MAC's and the plaintext parts' first, then
        // the bags inside encrypted safes once their (checked) derivation has opened them.
        try KeyDerivationLimit.check(der: data)
        var macIterations: UnsafePointer<ASN1_INTEGER>?
        PKCS12_get0_mac(nil, nil, nil, &macIterations, p12)
        if let macIterations {
            var iterations: Int64 = 0
            try KeyDerivationLimit.checkIterations(
                ASN1_INTEGER_get_int64(&iterations, macIterations) == 1 ? iterations : .max, of: "MAC")
        }
        // The MAC tells a wrong passphrase from a damaged file (as Apple: errSecAuthFailed).
        if PKCS12_mac_present(p12) == 1, PKCS12_verify_mac(p12, passphrase, -1) != 1,
            !passphrase.isEmpty || PKCS12_verify_mac(p12, nil, 0) != 1
        {
            throw KeychainError(SecStatus.authFailed, "the passphrase is not the file's (its MAC does not verify)")
        }
        try checkEncryptedSafes(p12, passphrase: passphrase)
        var key: OpaquePointer?, certificate: OpaquePointer?, others: OpaquePointer?
        guard PKCS12_parse(p12, passphrase, &key, &certificate, &others) == 1 else {
            throw KeychainError(SecStatus.decode, "the PKCS#12 file could not be decrypted: \(lastError())")
        }
        defer {
            EVP_PKEY_free(key)
            X509_free(certificate)
            OPENSSL_sk_pop_free(others, { X509_free(OpaquePointer($0)) })
        }
        guard let key, let certificate, let certificateDER = LibCrypto.der(of: certificate) else {
            throw KeychainError(SecStatus.unknownFormat, "the PKCS#12 file holds no private key with its certificate")
        }
        var chain: [Data] = []
        for index in 0..<max(0, OPENSSL_sk_num(others)) {
            if let other = OPENSSL_sk_value(others, index), let der = LibCrypto.der(of: OpaquePointer(other)) {
                chain.append(der)
            }
        }
        var length: Int32 = 0
        let alias = X509_alias_get0(certificate, &length).map {
            String(decoding: UnsafeBufferPointer(start: $0, count: Int(length)), as: UTF8.self)
        }
        let keyID = X509_keyid_get0(certificate, &length).map { Data(bytes: $0, count: Int(length)) }
        return Contents(
            privateKey: try LibCrypto.keychainKey(key), certificate: certificateDER, chain: chain, friendlyName: alias,
            localKeyID: keyID)
    }

    /// The bags of each encrypted safe that `passphrase` opens, checked against ``KeyDerivationLimit``
    /// (a safe it does not open is left to PKCS12_parse to report).
    private static func checkEncryptedSafes(_ p12: OpaquePointer, passphrase: String) throws(KeychainError) {
        guard let safes = PKCS12_unpack_authsafes(p12) else { return }
        defer { OPENSSL_sk_pop_free(safes, { PKCS7_free($0?.assumingMemoryBound(to: PKCS7.self)) }) }
        for index in 0..<max(0, OPENSSL_sk_num(safes)) {
            guard let p7 = OPENSSL_sk_value(safes, index)?.assumingMemoryBound(to: PKCS7.self),
                OBJ_obj2nid(p7.pointee.type) == NID_pkcs7_encrypted
            else { continue }
            let opened =
                PKCS12_unpack_p7encdata(p7, passphrase, -1)
                ?? (passphrase.isEmpty ? PKCS12_unpack_p7encdata(p7, nil, 0) : nil)
            guard let bags = opened else { continue }
            defer { OPENSSL_sk_pop_free(bags, { PKCS12_SAFEBAG_free(OpaquePointer($0)) }) }
            for bag in 0..<max(0, OPENSSL_sk_num(bags)) {
                var out: UnsafeMutablePointer<UInt8>?
                let length = i2d_PKCS12_SAFEBAG(OpaquePointer(OPENSSL_sk_value(bags, bag)), &out)
                guard length > 0, let out else { continue }
                defer { CRYPTO_free(out, #fileID, #line) }
                try KeyDerivationLimit.check(der: Data(bytes: out, count: Int(length)))
            }
        }
    }

    /// One identity to write: a private key as the keychain keeps it, its certificate (DER), its name.
    package struct Identity: Sendable {
        package var privateKey: PEMImport.Item
        package var certificate: Data
        package var friendlyName: String?

        package init(privateKey: PEMImport.Item, certificate: Data, friendlyName: String?) {
            self.privateKey = privateKey
            self.certificate = certificate
            self.friendlyName = friendlyName
        }
    }

    /// A PKCS#12 file of `identities` (every one, as macOS's `security export -f pkcs12` writes them) and the
    /// `chain` certificates, sealed with `passphrase` as `openssl pkcs12 -export` seals with OpenSSL 3's
    /// defaults: certificates in an AES-256-CBC/PBKDF2 safe, keys in shrouded bags, a SHA-256 MAC; each key
    /// and certificate tied by a localKeyID (the certificate's SHA-1) and named by its friendlyName.
    package static func make(_ identities: [Identity], chain: [Data] = [], passphrase: String) throws(KeychainError)
        -> Data
    {
        LibCrypto.loadProviders()
        defer { ERR_clear_error() }
        var certificateBags: OpaquePointer?, keyBags: OpaquePointer?, safes: OpaquePointer?
        defer {
            for bags in [certificateBags, keyBags].compactMap({ $0 }) {
                OPENSSL_sk_pop_free(bags, { PKCS12_SAFEBAG_free(OpaquePointer($0)) })
            }
            if let safes { OPENSSL_sk_pop_free(safes, { PKCS7_free($0?.assumingMemoryBound(to: PKCS7.self)) }) }
        }
        let failed = KeychainError(SecStatus.internalComponent, "the PKCS#12 file could not be made: \(lastError())")
        for identity in identities {
            let key = try LibCrypto.privateKey(identity.privateKey)
            defer { EVP_PKEY_free(key) }
            guard let x509 = LibCrypto.certificate(identity.certificate) else {
                throw KeychainError(SecStatus.decode, "the certificate is not DER X.509")
            }
            defer { X509_free(x509) }
            guard X509_check_private_key(x509, key) == 1 else {
                throw KeychainError(SecStatus.param, "a private key is not its certificate's")
            }
            var keyID = [UInt8](Insecure.SHA1.hash(data: identity.certificate))
            let bags = [
                PKCS12_add_cert(&certificateBags, x509),
                passphrase.withCString { PKCS12_add_key(&keyBags, key, 0, PKCS12_DEFAULT_ITER, NID_aes_256_cbc, $0) },
            ]
            for bag in bags {
                guard let bag, PKCS12_add_localkeyid(bag, &keyID, Int32(keyID.count)) == 1 else { throw failed }
                if let name = identity.friendlyName,
                    name.withCString({ PKCS12_add_friendlyname_utf8(bag, $0, -1) }) != 1
                {
                    throw failed
                }
            }
        }
        for der in chain {
            guard let x509 = LibCrypto.certificate(der) else {
                throw KeychainError(SecStatus.decode, "a chain certificate is not DER X.509")
            }
            defer { X509_free(x509) }
            guard PKCS12_add_cert(&certificateBags, x509) != nil else { throw failed }
        }
        guard let certificateBags, let keyBags else {
            throw KeychainError(SecStatus.itemNotFound, "no identity to export")
        }
        let added = passphrase.withCString { pass in
            PKCS12_add_safe(&safes, certificateBags, NID_aes_256_cbc, PKCS12_DEFAULT_ITER, pass) == 1
                && PKCS12_add_safe(&safes, keyBags, -1, 0, nil) == 1
        }
        guard added, let p12 = PKCS12_add_safes(safes, 0) else { throw failed }
        defer { PKCS12_free(p12) }
        guard passphrase.withCString({ PKCS12_set_mac(p12, $0, -1, nil, 0, PKCS12_DEFAULT_ITER, EVP_sha256()) }) == 1
        else { throw failed }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PKCS12(p12, &out)
        guard length > 0, let out else { throw failed }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Data(bytes: out, count: Int(length))
    }

    static func lastError() -> String {
        let code = ERR_peek_last_error()
        guard code != 0, let reason = ERR_reason_error_string(code) else { return "libcrypto error" }
        return String(cString: reason)
    }
}
