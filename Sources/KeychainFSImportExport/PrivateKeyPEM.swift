import KeychainFSCOpenSSL
import Foundation
import KeychainFSEngine
import KeychainFSModel

/// Private keys as PEM text through libcrypto: encrypted PKCS#8 (`ENCRYPTED PRIVATE KEY`, as `openssl pkey
/// -aes256` writes it) read with a passphrase, and keys written as PKCS#8 or OpenSSL's traditional form,
/// encrypted with AES-256-CBC when a passphrase is given.
package enum PrivateKeyPEM {
    /// The items of a PEM file whose private keys may be encrypted: each `ENCRYPTED PRIVATE KEY` block is
    /// decrypted with `passphrase` (errSecAuthFailed when it does not open it), the rest read by ``PEMImport``.
    package static func items(in file: Data, passphrase: String?) throws(KeychainError) -> [PEMImport.Item] {
        guard let text = String(data: file, encoding: .utf8), text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")
        else {
            return try PEMImport.items(in: file)
        }
        guard let passphrase else {
            throw KeychainError(
                SecStatus.passphraseRequired, "the private key is encrypted: give its passphrase with -P")
        }
        var plain = ""
        var rest = Substring(text)
        let begin = "-----BEGIN ENCRYPTED PRIVATE KEY-----", end = "-----END ENCRYPTED PRIVATE KEY-----"
        while let start = rest.range(of: begin) {
            plain += rest[..<start.lowerBound]
            guard let stop = rest[start.upperBound...].range(of: end) else {
                throw KeychainError(SecStatus.decode, "an ENCRYPTED PRIVATE KEY block has no END line")
            }
            plain += try decrypt(String(rest[start.lowerBound..<stop.upperBound]), passphrase: passphrase)
            rest = rest[stop.upperBound...]
        }
        plain += rest
        return try PEMImport.items(in: Data(plain.utf8))
    }

    /// One encrypted PKCS#8 block, decrypted, as an unencrypted PKCS#8 PEM block; its key derivation is
    /// checked against ``KeyDerivationLimit`` first.
    static func decrypt(_ block: String, passphrase: String) throws(KeychainError) -> String {
        // The block is BEGIN line, base64 (no headers in PKCS#8), END line.
        let body = block.utf8.dropFirst("-----BEGIN ENCRYPTED PRIVATE KEY-----".utf8.count).dropLast(
            "-----END ENCRYPTED PRIVATE KEY-----".utf8.count)
        if let der = Data(base64Encoded: Data(body), options: .ignoreUnknownCharacters) {
            try KeyDerivationLimit.check(der: der)
        }
        LibCrypto.loadProviders()
        defer { ERR_clear_error() }
        let key = passphrase.withCString { pass in
            LibCrypto.reading(Data(block.utf8)) { bio in
                PEM_read_bio_PrivateKey(bio, nil, nil, UnsafeMutableRawPointer(mutating: pass))
            }
        }
        guard let key = key ?? nil else {
            throw KeychainError(SecStatus.authFailed, "the passphrase does not open the private key")
        }
        defer { EVP_PKEY_free(key) }
        guard let pem = LibCrypto.written({ PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) == 1 }) else {
            throw KeychainError(SecStatus.internalComponent, "the private key could not be written")
        }
        return String(decoding: pem, as: UTF8.self)
    }

    /// How a private key is written.
    package enum Form: Sendable {
        /// PKCS#8 (`PRIVATE KEY`, or `ENCRYPTED PRIVATE KEY` with a passphrase).
        case pkcs8
        /// OpenSSL's traditional form (`EC PRIVATE KEY`, `RSA PRIVATE KEY`), as macOS's `-f openssl`.
        case traditional
    }

    /// `key` as PEM (or DER with `pem: false`); encrypted with AES-256-CBC when `passphrase` is given.
    package static func export(_ key: PEMImport.Item, form: Form, pem: Bool, passphrase: String?) throws(KeychainError)
        -> Data
    {
        LibCrypto.loadProviders()
        defer { ERR_clear_error() }
        let pkey = try LibCrypto.privateKey(key)
        defer { EVP_PKEY_free(pkey) }
        let cipher = passphrase == nil ? nil : EVP_aes_256_cbc()
        let written: Data? = (passphrase ?? "").withCString { pass in
            let length = Int32(strlen(pass))
            let mutablePass = UnsafeMutablePointer(mutating: pass)
            return LibCrypto.written { bio in
                switch (form, pem) {
                case (.pkcs8, true):
                    PEM_write_bio_PKCS8PrivateKey(
                        bio, pkey, cipher, nil, 0, nil, cipher == nil ? nil : UnsafeMutableRawPointer(mutablePass)) == 1
                case (.pkcs8, false):
                    i2d_PKCS8PrivateKey_bio(
                        bio, pkey, cipher, nil, 0, nil, cipher == nil ? nil : UnsafeMutableRawPointer(mutablePass)) == 1
                case (.traditional, true):
                    PEM_write_bio_PrivateKey_traditional(
                        bio, pkey, cipher, UnsafeMutableRawPointer(mutablePass).assumingMemoryBound(to: UInt8.self),
                        cipher == nil ? 0 : length, nil, nil) == 1
                case (.traditional, false): i2d_PrivateKey_bio(bio, pkey) == 1
                }
            }
        }
        guard let written else {
            throw KeychainError(SecStatus.internalComponent, "the private key could not be written")
        }
        return written
    }
}
