import KeychainFSCOpenSSL
import Foundation

/// An RSA key held by libcrypto, in Apple's external representation (PKCS#1 RSAPublicKey /
/// RSAPrivateKey DER), with every padding Apple's SecKey offers.
final class RSAKeyMaterial: @unchecked Sendable {
    // An EVP_PKEY is safe to use from several threads for signing, verifying and crypting.
    private let pkey: OpaquePointer
    let isPrivate: Bool

    private init(_ pkey: OpaquePointer, isPrivate: Bool) {
        self.pkey = pkey
        self.isPrivate = isPrivate
    }

    deinit { EVP_PKEY_free(pkey) }

    /// Apple's rule (SecRSAKey.c, SecRSAPrivateKeyInit): 512 to 8192 bits, else errSecKeySizeNotAllowed.
    static let allowedBits = 512...8192

    /// A new key of `bits` with exponent 65537.
    static func generate(bits: Int) throws(KeyFailure) -> RSAKeyMaterial {
        guard allowedBits.contains(bits) else {
            throw KeyFailure(errSecKeySizeNotAllowed, "RSA keys are 512 to 8192 bits, not \(bits)")
        }
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else {
            throw KeyFailure(errSecInternal, "libcrypto: no RSA context")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, Int32(bits)) == 1,
            EVP_PKEY_generate(ctx, &key) == 1, let key
        else { throw KeyFailure(errSecInternal, "libcrypto: RSA key generation failed") }
        return RSAKeyMaterial(key, isPrivate: true)
    }

    /// The key in PKCS#1 DER; nil if the bytes are not one.
    init?(pkcs1 data: Data, isPrivate: Bool) {
        let parsed: OpaquePointer? = data.withUnsafeBytes { raw in
            var cursor: UnsafePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return isPrivate
                ? d2i_PrivateKey(EVP_PKEY_RSA, nil, &cursor, raw.count)
                : d2i_PublicKey(EVP_PKEY_RSA, nil, &cursor, raw.count)
        }
        guard let parsed else { ERR_clear_error(); return nil }
        pkey = parsed
        self.isPrivate = isPrivate
    }

    /// Modulus bits.
    var bits: Int { Int(EVP_PKEY_get_bits(pkey)) }
    /// Modulus bytes (SecKeyGetBlockSize).
    var blockSize: Int { Int(EVP_PKEY_get_size(pkey)) }

    /// Apple's external representation.
    var pkcs1: Data {
        var out: UnsafeMutablePointer<UInt8>?
        let length = isPrivate ? i2d_PrivateKey(pkey, &out) : i2d_PublicKey(pkey, &out)
        guard length > 0, let out else { return Data() }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Data(bytes: out, count: Int(length))
    }

    /// The public half.
    var publicKey: RSAKeyMaterial {
        guard isPrivate else { return self }
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PublicKey(pkey, &out)
        defer { if let out { CRYPTO_free(out, #fileID, #line) } }
        return RSAKeyMaterial(pkcs1: Data(bytes: out!, count: Int(length)), isPrivate: false)!
    }

    /// A signature of `digest` (or, for `.raw`, of the block itself).
    func sign(digest: Data, padding: KeyAlgorithmSpec.RSASignaturePadding) throws(KeyFailure) -> Data {
        switch padding {
        case .raw: return try crypt(digest, decrypting: true, pad: RSA_NO_PADDING, md: nil, raw: true)
        default: break
        }
        return try run(init: { EVP_PKEY_sign_init($0) }, digest, configure: { ctx in configure(ctx, padding) }) {
            ctx, out, outLength, input, inLength in
            EVP_PKEY_sign(ctx, out, outLength, input, inLength)
        }
    }

    /// Whether `signature` is valid for `digest`.
    func verify(digest: Data, signature: Data, padding: KeyAlgorithmSpec.RSASignaturePadding) -> Bool {
        if case .raw = padding {
            // Apple: the public operation's result, leading zeros skipped, must equal the input.
            guard let block = try? crypt(signature, decrypting: false, pad: RSA_NO_PADDING, md: nil, raw: true) else {
                return false
            }
            return Data(block.drop(while: { $0 == 0 })) == Data(digest.drop(while: { $0 == 0 }))
        }
        guard let ctx = EVP_PKEY_CTX_new(pkey, nil) else { return false }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_verify_init(ctx) == 1, configure(ctx, padding) else { return false }
        let result = signature.withUnsafeBytes { s in
            digest.withUnsafeBytes { d in
                EVP_PKEY_verify(
                    ctx, s.baseAddress?.assumingMemoryBound(to: UInt8.self), s.count,
                    d.baseAddress?.assumingMemoryBound(to: UInt8.self), d.count)
            }
        }
        ERR_clear_error()
        return result == 1
    }

    /// `data` encrypted with the public key.
    func encrypt(_ data: Data, padding: KeyAlgorithmSpec.RSAEncryptionPadding) throws(KeyFailure) -> Data {
        let (pad, md) = Self.parameters(padding)
        return try crypt(data, decrypting: false, pad: pad, md: md, raw: padding == .raw)
    }

    /// `data` decrypted with the private key.
    func decrypt(_ data: Data, padding: KeyAlgorithmSpec.RSAEncryptionPadding) throws(KeyFailure) -> Data {
        let (pad, md) = Self.parameters(padding)
        return try crypt(data, decrypting: true, pad: pad, md: md, raw: padding == .raw)
    }

    private static func parameters(_ padding: KeyAlgorithmSpec.RSAEncryptionPadding) -> (Int32, OpaquePointer?) {
        switch padding {
        case .raw: (RSA_NO_PADDING, nil)
        case .pkcs1: (RSA_PKCS1_PADDING, nil)
        case .oaep(let digest): (RSA_PKCS1_OAEP_PADDING, digest.md)
        }
    }

    /// Raw RSA takes a block of the modulus' size: shorter input is left-padded with zeros, as Apple does.
    private func crypt(_ data: Data, decrypting: Bool, pad: Int32, md: OpaquePointer?, raw: Bool) throws(KeyFailure)
        -> Data
    {
        var input = data
        if raw {
            guard data.count <= blockSize else {
                throw KeyFailure(
                    errSecParam, "input of \(data.count) bytes is longer than the \(blockSize)-byte modulus")
            }
            input = Data(count: blockSize - data.count) + data
        }
        // The private operation is a decryption, the public one an encryption (raw signing and verifying too).
        let initialize: (OpaquePointer?) -> Int32 = {
            decrypting ? EVP_PKEY_decrypt_init($0) : EVP_PKEY_encrypt_init($0)
        }
        return try run(
            init: initialize, input,
            configure: { ctx in
                guard EVP_PKEY_CTX_set_rsa_padding(ctx, pad) == 1 else { return false }
                if let md {
                    return EVP_PKEY_CTX_set_rsa_oaep_md(ctx, md) == 1 && EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, md) == 1
                }
                return true
            }
        ) { ctx, out, outLength, input, inLength in
            decrypting
                ? EVP_PKEY_decrypt(ctx, out, outLength, input, inLength)
                : EVP_PKEY_encrypt(ctx, out, outLength, input, inLength)
        }
    }

    private func configure(_ ctx: OpaquePointer?, _ padding: KeyAlgorithmSpec.RSASignaturePadding) -> Bool {
        switch padding {
        case .raw: return EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_NO_PADDING) == 1
        case .pkcs1v15(let digest):
            guard EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1 else { return false }
            return digest.map { EVP_PKEY_CTX_set_signature_md(ctx, $0.md) == 1 } ?? true
        case .pss(let digest):
            return EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PSS_PADDING) == 1
                && EVP_PKEY_CTX_set_signature_md(ctx, digest.md) == 1
                && EVP_PKEY_CTX_set_rsa_mgf1_md(ctx, digest.md) == 1
                && EVP_PKEY_CTX_set_rsa_pss_saltlen(ctx, Int32(digest.size)) == 1
        }
    }

    private typealias Operation = (
        OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>, UnsafePointer<UInt8>?, Int
    ) -> Int32

    private func run(
        init initialize: (OpaquePointer?) -> Int32, _ input: Data, configure: (OpaquePointer?) -> Bool,
        _ operation: Operation
    ) throws(KeyFailure) -> Data {
        guard let ctx = EVP_PKEY_CTX_new(pkey, nil) else { throw KeyFailure(errSecInternal, "libcrypto: no context") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard initialize(ctx) == 1, configure(ctx) else {
            ERR_clear_error()
            throw KeyFailure(errSecParam, "the RSA key does not support this operation")
        }
        var length = 0
        let result: Data? = input.withUnsafeBytes { raw -> Data? in
            let bytes = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            guard operation(ctx, nil, &length, bytes, raw.count) == 1 else { return nil }
            var output = Data(count: length)
            let status = output.withUnsafeMutableBytes {
                operation(ctx, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, bytes, raw.count)
            }
            return status == 1 ? output.prefix(length) : nil
        }
        guard let result else {
            let code = ERR_get_error()
            ERR_clear_error()
            throw KeyFailure(
                errSecParam,
                "RSA operation failed: wrong input size or padding (libcrypto error \(String(code, radix: 16)))")
        }
        return Data(result)
    }
}
