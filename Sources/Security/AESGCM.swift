import KeychainFSCOpenSSL
import Foundation

/// AES-GCM with any IV length and a 16-byte tag, by libcrypto: Apple's ECIES and RSA-AESGCM use a
/// 16-byte IV, which swift-crypto's GCM (12-byte nonces on BoringSSL) does not take.
enum AESGCM {
    static let tagSize = 16

    /// `plaintext` sealed: ciphertext ‖ tag.
    static func seal(_ plaintext: Data, key: Data, iv: Data, aad: Data) throws(KeyFailure) -> Data {
        try run(encrypt: true, plaintext, key: key, iv: iv, aad: aad, tag: nil)
    }

    /// The plaintext of ciphertext ‖ tag; errSecParam when it does not authenticate.
    static func open(_ box: Data, key: Data, iv: Data, aad: Data) throws(KeyFailure) -> Data {
        guard box.count >= tagSize else { throw KeyFailure(errSecParam, "ECIES: Input data too short") }
        return try run(
            encrypt: false, Data(box.dropLast(tagSize)), key: key, iv: iv, aad: aad, tag: Data(box.suffix(tagSize)))
    }

    private static func run(encrypt: Bool, _ input: Data, key: Data, iv: Data, aad: Data, tag: Data?) throws(KeyFailure)
        -> Data
    {
        let cipher: OpaquePointer? =
            switch key.count {
            case 16: EVP_aes_128_gcm()
            case 24: EVP_aes_192_gcm()
            case 32: EVP_aes_256_gcm()
            default: nil
            }
        guard let cipher, let ctx = EVP_CIPHER_CTX_new() else {
            throw KeyFailure(errSecParam, "AES-GCM: unsupported key size \(key.count * 8)")
        }
        defer { EVP_CIPHER_CTX_free(ctx) }
        var output = Data(count: input.count + tagSize)
        var length: Int32 = 0
        let ok: Bool = key.withUnsafeBytes { k in
            iv.withUnsafeBytes { v in
                aad.withUnsafeBytes { a in
                    input.withUnsafeBytes { i in
                        output.withUnsafeMutableBytes { o in
                            let out = o.baseAddress!.assumingMemoryBound(to: UInt8.self)
                            let kp = k.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                vp = v.baseAddress!.assumingMemoryBound(to: UInt8.self)
                            let enc: Int32 = encrypt ? 1 : 0
                            guard EVP_CipherInit_ex(ctx, cipher, nil, nil, nil, enc) == 1,
                                EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, Int32(iv.count), nil) == 1,
                                EVP_CipherInit_ex(ctx, nil, nil, kp, vp, enc) == 1
                            else { return false }
                            if a.count > 0,
                                EVP_CipherUpdate(
                                    ctx, nil, &length, a.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                    Int32(a.count)) != 1
                            {
                                return false
                            }
                            var total: Int32 = 0
                            if i.count > 0 {
                                guard
                                    EVP_CipherUpdate(
                                        ctx, out, &length, i.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                        Int32(i.count)) == 1
                                else { return false }
                                total = length
                            }
                            if let tag {
                                var tagBytes = [UInt8](tag)
                                guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(tagSize), &tagBytes) == 1
                                else { return false }
                            }
                            guard EVP_CipherFinal_ex(ctx, out + Int(total), &length) == 1 else { return false }
                            if encrypt {
                                return EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(tagSize), out + input.count)
                                    == 1
                            }
                            return true
                        }
                    }
                }
            }
        }
        guard ok else {
            throw KeyFailure(
                errSecParam,
                encrypt ? "AES-GCM: failed to encrypt" : "AES-GCM: failed to decrypt data (wrong key or tampered)")
        }
        return encrypt ? output : output.prefix(input.count)
    }
}

/// A SecKey failure: the OSStatus and message the CFError carries.
struct KeyFailure: Error {
    let status: OSStatus
    let message: String
    init(_ status: OSStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}
