import KeychainFSCOpenSSL
import Crypto
import Foundation

/// The transport encryption of a session (Secret Service API, "Transfer of Secrets"): `plain`, or
/// `dh-ietf1024-sha256-aes128-cbc-pkcs7`: Diffie-Hellman in RFC 2409's second Oakley group, the shared
/// value (128 bytes, big-endian) through HKDF-SHA256 with empty salt and info to a 16-byte AES key, and
/// every secret AES-128-CBC with PKCS#7 padding under a fresh IV. libcrypto does the arithmetic and AES.
enum SessionCrypto: Sendable {
    case plain
    case aes(key: SymmetricKey)

    static let plainAlgorithm = "plain"
    static let dhAlgorithm = "dh-ietf1024-sha256-aes128-cbc-pkcs7"

    /// RFC 2409, 6.2: the 1024-bit MODP group, generator 2.
    static let primeHex =
        "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
        + "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
        + "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF"
    static let groupBytes = 128

    /// Agrees on a key with a client whose public value is `clientPublic`; returns the session's crypto
    /// and the service's public value (128 bytes) for the client.
    static func agree(clientPublic: Data) throws(BusError) -> (SessionCrypto, Data) {
        guard !clientPublic.isEmpty, clientPublic.count <= groupBytes else {
            throw .invalidArgs(
                "the client's Diffie-Hellman public value must be 1 to 128 bytes, not \(clientPublic.count)")
        }
        guard let context = BN_CTX_new() else { throw .failed("out of memory") }
        defer { BN_CTX_free(context) }
        var primeNumber: OpaquePointer?
        guard BN_hex2bn(&primeNumber, primeHex) > 0, let prime = primeNumber else { throw .failed("out of memory") }
        defer { BN_free(prime) }
        let generator = BN_new(), privateKey = BN_new(), ownPublic = BN_new(), shared = BN_new()
        defer { BN_free(generator); BN_clear_free(privateKey); BN_free(ownPublic); BN_clear_free(shared) }
        let peer = clientPublic.withUnsafeBytes {
            BN_bin2bn($0.bindMemory(to: UInt8.self).baseAddress, Int32($0.count), nil)
        }
        defer { BN_free(peer) }
        guard let generator, let privateKey, let ownPublic, let shared, let peer else { throw .failed("out of memory") }
        // 1 < peer < p - 1: no small-subgroup value (0, 1, p - 1) that would fix the shared secret.
        let limit = BN_dup(prime)
        defer { BN_free(limit) }
        guard let limit, BN_sub_word(limit, 1) == 1, BN_set_word(generator, 2) == 1 else {
            throw .failed("out of memory")
        }
        guard BN_cmp(peer, BN_value_one()) > 0, BN_cmp(peer, limit) < 0 else {
            throw .invalidArgs("the client's Diffie-Hellman public value is out of range")
        }
        guard BN_rand_range(privateKey, limit) == 1, BN_mod_exp(ownPublic, generator, privateKey, prime, context) == 1,
            BN_mod_exp(shared, peer, privateKey, prime, context) == 1
        else { throw .failed("Diffie-Hellman failed") }
        let sharedBytes = padded(shared)
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: sharedBytes), salt: Data(), info: Data(), outputByteCount: 16)
        return (.aes(key: key), padded(ownPublic))
    }

    private static func padded(_ number: OpaquePointer) -> Data {
        var bytes = [UInt8](repeating: 0, count: groupBytes)
        _ = BN_bn2binpad(number, &bytes, Int32(groupBytes))
        return Data(bytes)
    }

    /// The plaintext of a secret a client sent (`parameters` is the IV).
    func open(_ value: Data, parameters: Data) throws(BusError) -> Data {
        switch self {
        case .plain: return value
        case .aes(let key):
            guard parameters.count == 16 else {
                throw .invalidArgs("an encrypted secret needs a 16-byte IV, not \(parameters.count) bytes")
            }
            guard !value.isEmpty, value.count % 16 == 0 else {
                throw .invalidArgs("an encrypted secret is a whole number of AES blocks")
            }
            guard let plain = Self.cbc(encrypt: false, key: key, iv: parameters, value) else {
                throw .invalidArgs("the secret does not decrypt with this session's key (wrong key or padding)")
            }
            return plain
        }
    }

    /// What to send for `secret`: its parameters (an IV, or nothing) and value.
    func seal(_ secret: Data) throws(BusError) -> (parameters: Data, value: Data) {
        switch self {
        case .plain: return (Data(), secret)
        case .aes(let key):
            let iv = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }
            guard let sealed = Self.cbc(encrypt: true, key: key, iv: iv, secret) else {
                throw .failed("encryption failed")
            }
            return (iv, sealed)
        }
    }

    private static func cbc(encrypt: Bool, key: SymmetricKey, iv: Data, _ input: Data) -> Data? {
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        let started = key.withUnsafeBytes { keyBytes in
            iv.withUnsafeBytes { ivBytes in
                EVP_CipherInit_ex(
                    context, EVP_aes_128_cbc(), nil, keyBytes.bindMemory(to: UInt8.self).baseAddress,
                    ivBytes.bindMemory(to: UInt8.self).baseAddress, encrypt ? 1 : 0)
            }
        }
        guard started == 1 else { return nil }
        var output = [UInt8](repeating: 0, count: input.count + 32)
        var written: Int32 = 0, last: Int32 = 0
        let updated = input.withUnsafeBytes {
            EVP_CipherUpdate(context, &output, &written, $0.bindMemory(to: UInt8.self).baseAddress, Int32($0.count))
        }
        guard updated == 1 else { return nil }
        let finalized = output.withUnsafeMutableBufferPointer {
            EVP_CipherFinal_ex(context, $0.baseAddress! + Int(written), &last)
        }
        guard finalized == 1 else { return nil }
        defer { output.withUnsafeMutableBytes { _ = memset($0.baseAddress!, 0, $0.count) } }
        return Data(output[0..<Int(written + last)])
    }
}
