import Crypto
import Foundation

/// The SecKey operations, as Apple's adaptors in SecKeyAdaptors.c perform them: which key an algorithm
/// takes, the digest of a message, ECDSA encodings, RSA paddings, ECIES and RSA-AESGCM packets, the
/// X9.63 KDF of key exchange.
enum SecKeyCrypto {
    /// The spec of `algorithm` if `key` can perform `operation` with it, else Apple's errSecParam
    /// "algorithm not supported by the key".
    static func spec(_ key: SecKey, _ operation: SecKeyOperationType, _ algorithm: SecKeyAlgorithm) throws(KeyFailure)
        -> (KeyAlgorithmSpec, KeyMaterial)
    {
        guard let material = key.material, let spec = KeyAlgorithmSpec(algorithm), supports(material, operation, spec)
        else {
            throw KeyFailure(errSecParam, "\(algorithm.rawValue): algorithm not supported by the key")
        }
        return (spec, material)
    }

    static func supports(_ material: KeyMaterial, _ operation: SecKeyOperationType, _ spec: KeyAlgorithmSpec) -> Bool {
        guard spec.operations.contains(operation), spec.keyType == material.kind else { return false }
        let needsPrivate = [.sign, .decrypt, .keyExchange].contains(operation)
        guard material.isPrivate == needsPrivate else { return false }
        // Apple's size rules (SecKeyAdaptors.c): PSS and OAEP need 2·hLen + 2 bytes of modulus, PKCS#1 11.
        switch spec {
        case .rsaSignature(_, .pss(let digest)) where operation == .sign:
            return material.blockSize >= 2 * digest.size + 2
        case .rsaEncryption(.oaep(let digest), _): return material.blockSize >= 2 * digest.size + 2
        case .rsaEncryption(.pkcs1, _): return material.blockSize >= 11
        default: return true
        }
    }

    // MARK: Signatures

    static func sign(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data) throws(KeyFailure) -> Data {
        let (spec, material) = try spec(key, .sign, algorithm)
        switch (spec, material) {
        case (.ecdsa(let input, let hash, let format), _):
            let digest = try signedDigest(data, input, hash, algorithm)
            let der: Data
            switch material {
            case .ec(let k): der = try k.sign(digest: digest)
            case .secureEnclave(let k): der = try SecureEnclaveClient.sign(k, digest: digest)
            case .rsa: throw KeyFailure(errSecParam, "\(algorithm.rawValue): algorithm not supported by the key")
            }
            guard format == .rfc4754 else { return der }
            guard let raw = ECDSAEncoding.raw(fromDER: der, size: material.blockSize) else {
                throw KeyFailure(errSecInternal, "Wrong ECDSA X962 signature")
            }
            return raw
        case (.rsaSignature(let input, let padding), .rsa(let k)):
            let hash: DigestKind? =
                switch padding {
                case .pkcs1v15(let h): h;
                case .pss(let h): h;
                case .raw: nil
                }
            return try k.sign(digest: try signedDigest(data, input, hash, algorithm), padding: padding)
        default:
            throw KeyFailure(errSecParam, "\(algorithm.rawValue): algorithm not supported by the key")
        }
    }

    /// True, or false with errSecVerifyFailed.
    static func verify(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ data: Data, _ signature: Data) throws(KeyFailure)
        -> Bool
    {
        let (spec, material) = try spec(key, .verify, algorithm)
        let valid: Bool
        switch (spec, material) {
        case (.ecdsa(let input, let hash, let format), .ec(let k)):
            let digest = try signedDigest(data, input, hash, algorithm)
            let der = format == .x962 ? signature : ECDSAEncoding.der(fromRaw: signature, size: k.coordinateSize)
            valid = der.map { k.verify(digest: digest, der: $0) } ?? false
        case (.rsaSignature(let input, let padding), .rsa(let k)):
            let hash: DigestKind? =
                switch padding {
                case .pkcs1v15(let h): h;
                case .pss(let h): h;
                case .raw: nil
                }
            valid = k.verify(
                digest: try signedDigest(data, input, hash, algorithm), signature: signature, padding: padding)
        default:
            throw KeyFailure(errSecParam, "\(algorithm.rawValue): algorithm not supported by the key")
        }
        guard valid else {
            throw KeyFailure(errSecVerifyFailed, "\(algorithm.rawValue): signature verification failed, no match")
        }
        return true
    }

    /// The digest a signature covers: the message's hash, or the digest given (its size checked).
    private static func signedDigest(
        _ data: Data, _ input: KeyAlgorithmSpec.Input, _ hash: DigestKind?, _ algorithm: SecKeyAlgorithm
    ) throws(KeyFailure) -> Data {
        guard let hash else { return data }
        if input == .message { return hash.hash(data) }
        guard data.count == hash.size else {
            throw KeyFailure(
                errSecParam,
                "bad digest size for signing with algorithm \(algorithm.rawValue): \(data.count) bytes, \(hash.size) expected"
            )
        }
        return data
    }

    // MARK: Encryption

    static func encrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ plaintext: Data) throws(KeyFailure) -> Data {
        let (spec, material) = try spec(key, .encrypt, algorithm)
        switch (spec, material) {
        case (.rsaEncryption(let padding, let aesGCM), .rsa(let k)):
            guard aesGCM else { return try k.encrypt(plaintext, padding: padding) }
            // Apple's RSA-AESGCM: OAEP-wrapped session key ‖ AES-GCM(zero IV, AAD = public key) ‖ tag.
            let sessionKey = randomBytes(k.bits >= 4096 ? 32 : 16)
            let wrapped = try k.encrypt(sessionKey, padding: padding)
            return wrapped + (try AESGCM.seal(plaintext, key: sessionKey, iv: Data(count: 16), aad: k.pkcs1))
        case (.ecies(_, let hash, let variableIV), .ec(let recipient)):
            // Apple's ECIES: ephemeral public key ‖ AES-GCM ciphertext ‖ tag, key (and IV) from X9.63.
            guard let ephemeral = ECKeyMaterial.generate(bits: recipient.bits) else {
                throw KeyFailure(errSecParam, "unsupported curve")
            }
            return try eciesEncrypt(plaintext, to: recipient, ephemeral: ephemeral, hash: hash, variableIV: variableIV)
        default:
            throw KeyFailure(errSecParam, "\(algorithm.rawValue): algorithm not supported by the key")
        }
    }

    static func decrypt(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ ciphertext: Data) throws(KeyFailure) -> Data {
        let (spec, material) = try spec(key, .decrypt, algorithm)
        switch (spec, material) {
        case (.rsaEncryption(let padding, let aesGCM), .rsa(let k)):
            guard aesGCM else { return try k.decrypt(ciphertext, padding: padding) }
            guard ciphertext.count >= k.blockSize + AESGCM.tagSize else {
                throw KeyFailure(errSecParam, "RSA-WRAP too short input data")
            }
            let sessionKey = try k.decrypt(Data(ciphertext.prefix(k.blockSize)), padding: padding)
            guard sessionKey.count == (k.bits >= 4096 ? 32 : 16) else {
                throw KeyFailure(errSecParam, "RSA-WRAP bad ciphertext, unexpected session key size")
            }
            return try AESGCM.open(
                Data(ciphertext.dropFirst(k.blockSize)), key: sessionKey, iv: Data(count: 16), aad: k.publicKey.pkcs1)
        case (.ecies(_, let hash, let variableIV), _):
            let size = material.blockSize
            guard ciphertext.count >= 2 * size + 1 else {
                throw KeyFailure(errSecParam, "too small input packet for ECIES decrypt")
            }
            let ephemeralPublic = Data(ciphertext.prefix(2 * size + 1))
            guard let ephemeral = ECKeyMaterial(x963: ephemeralPublic, isPrivate: false) else {
                throw KeyFailure(errSecParam, "ECIES: bad ephemeral public key")
            }
            let secret = try sharedSecret(material, ephemeral)
            let (aesKey, iv) = eciesKey(
                secret, ephemeralPublic: ephemeralPublic, recipient: material.publicKeyBytes, hash: hash,
                variableIV: variableIV)
            return try AESGCM.open(Data(ciphertext.dropFirst(2 * size + 1)), key: aesKey, iv: iv, aad: Data())
        default:
            throw KeyFailure(errSecParam, "\(algorithm.rawValue): algorithm not supported by the key")
        }
    }

    /// Apple's ECIES packet for `recipient` with the ephemeral key given (random in use; fixed in the
    /// known-answer tests).
    static func eciesEncrypt(
        _ plaintext: Data, to recipient: ECKeyMaterial, ephemeral: ECKeyMaterial, hash: DigestKind,
        variableIV: Bool
    ) throws(KeyFailure) -> Data {
        let ephemeralPublic = ephemeral.publicKey.x963
        let secret = try ephemeral.sharedSecret(with: recipient)
        let (aesKey, iv) = eciesKey(
            secret, ephemeralPublic: ephemeralPublic, recipient: recipient.publicKey.x963, hash: hash,
            variableIV: variableIV)
        return ephemeralPublic + (try AESGCM.seal(plaintext, key: aesKey, iv: iv, aad: Data()))
    }

    /// AES key and IV of Apple's ECIES: AES-128 for curves up to 256 bits, else AES-256; the X9.63 KDF's
    /// shared info is the ephemeral public key; the IV is 16 zero bytes, or 16 more KDF bytes (variable IV).
    static func eciesKey(_ secret: Data, ephemeralPublic: Data, recipient: Data, hash: DigestKind, variableIV: Bool)
        -> (key: Data, iv: Data)
    {
        let keySize = ((recipient.count - 1) / 2) * 8 > 256 ? 32 : 16
        let derived = hash.x963(secret, sharedInfo: ephemeralPublic, size: keySize + (variableIV ? 16 : 0))
        return (Data(derived.prefix(keySize)), variableIV ? Data(derived.suffix(16)) : Data(count: 16))
    }

    // MARK: Key exchange

    static func exchange(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ peer: SecKey, _ parameters: [String: Any])
        throws(KeyFailure) -> Data
    {
        let (spec, material) = try spec(key, .keyExchange, algorithm)
        guard case .ecdh(_, let kdf) = spec else {
            throw KeyFailure(errSecParam, "\(algorithm.rawValue): algorithm not supported by the key")
        }
        guard case .ec(let peerKey)? = peer.material?.publicMaterial, peerKey.bits == material.bits else {
            throw KeyFailure(errSecParam, "key exchange needs a public EC key on the private key's curve")
        }
        let secret = try sharedSecret(material, peerKey)
        guard let kdf else { return secret }
        let requested = parameters[SecKeyKeyExchangeParameter.requestedSize.rawValue as String]
        guard let size = (requested as? Int) ?? (requested as? NSNumber)?.intValue, size > 0, size <= 1 << 20 else {
            throw KeyFailure(errSecParam, "kSecKeyKeyExchangeParameterRequestedSize is missing")
        }
        var sharedInfo = Data()
        if let info = parameters[SecKeyKeyExchangeParameter.sharedInfo.rawValue as String] {
            guard let data = (info as? Data) ?? (info as? NSData).map({ Data($0) }) else {
                throw KeyFailure(errSecParam, "ECDHKeyExchange wrong sharedInfo type (must be CFData/NSData)")
            }
            sharedInfo = data
        }
        return kdf.x963(secret, sharedInfo: sharedInfo, size: size)
    }

    private static func sharedSecret(_ material: KeyMaterial, _ peer: ECKeyMaterial) throws(KeyFailure) -> Data {
        switch material {
        case .ec(let k): try k.sharedSecret(with: peer)
        case .secureEnclave(let k): try SecureEnclaveClient.exchange(k, peer: peer.publicKey.x963)
        case .rsa: throw KeyFailure(errSecParam, "an RSA key cannot do key exchange")
        }
    }

    static func randomBytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }
}

/// ECDSA signatures as DER (X9.62) and as fixed-width r‖s (RFC 4754), converted by swift-crypto.
enum ECDSAEncoding {
    static func raw(fromDER der: Data, size: Int) -> Data? {
        switch size {
        case 32: try? P256.Signing.ECDSASignature(derRepresentation: der).rawRepresentation
        case 48: try? P384.Signing.ECDSASignature(derRepresentation: der).rawRepresentation
        case 66: try? P521.Signing.ECDSASignature(derRepresentation: der).rawRepresentation
        default: nil
        }
    }

    static func der(fromRaw raw: Data, size: Int) -> Data? {
        guard raw.count == 2 * size else { return nil }
        return switch size {
        case 32: try? P256.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation
        case 48: try? P384.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation
        case 66: try? P521.Signing.ECDSASignature(rawRepresentation: raw).derRepresentation
        default: nil
        }
    }
}
