import Foundation

/// What a SecKeyAlgorithm asks for, read from its raw value (`algid:<operation>:<family>:<details>`),
/// the way Apple's adaptors in SecKeyAdaptors.c are chosen.
enum KeyAlgorithmSpec: Equatable {
    /// How the input of a signature is given.
    enum Input: Equatable { case message, digest }
    /// ECDSA signature encodings: DER (X9.62) or fixed-width r‖s (RFC 4754).
    enum ECDSAFormat: Equatable { case x962, rfc4754 }
    /// RSA signature paddings; a nil hash is PKCS#1 v1.5 over a raw digest (no DigestInfo).
    enum RSASignaturePadding: Equatable { case raw, pkcs1v15(DigestKind?), pss(DigestKind) }
    /// RSA encryption paddings.
    enum RSAEncryptionPadding: Equatable { case raw, pkcs1, oaep(DigestKind) }

    case ecdsa(input: Input, hash: DigestKind?, format: ECDSAFormat)
    case rsaSignature(input: Input, padding: RSASignaturePadding)
    case rsaEncryption(padding: RSAEncryptionPadding, aesGCM: Bool)
    case ecies(cofactor: Bool, hash: DigestKind, variableIV: Bool)
    case ecdh(cofactor: Bool, kdf: DigestKind?)

    /// The operations an algorithm serves: signatures verify too, encryption decrypts.
    var operations: Set<SecKeyOperationType> {
        switch self {
        case .ecdsa, .rsaSignature: [.sign, .verify]
        case .rsaEncryption, .ecies: [.encrypt, .decrypt]
        case .ecdh: [.keyExchange]
        }
    }

    /// The key type the algorithm belongs to.
    var keyType: KeyKind {
        switch self {
        case .ecdsa, .ecies, .ecdh: .ec
        case .rsaSignature, .rsaEncryption: .rsa
        }
    }

    /// Parses `algorithm`; nil for identifiers this module does not know (Apple's private ones included).
    init?(_ algorithm: SecKeyAlgorithm) {
        let parts = String(algorithm.rawValue).split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 3, parts[0] == "algid" else { return nil }
        let rest = Array(parts.dropFirst(3))
        func hash(_ index: Int) -> DigestKind? { index < rest.count ? DigestKind(rawValue: rest[index]) : nil }
        switch (parts[1], parts[2]) {
        case ("sign", "ECDSA"):  // not a schema code
            if rest == ["RFC4754"] { self = .ecdsa(input: .digest, hash: nil, format: .rfc4754); return }
            guard let mode = rest.first, rest.count <= 2 else { return nil }
            let table: [String: (Input, ECDSAFormat)] = [
                "digest-X962": (.digest, .x962), "message-X962": (.message, .x962),
                "digest-RFC4754": (.digest, .rfc4754), "message-RFC4754": (.message, .rfc4754),
            ]
            guard let (input, format) = table[mode] else { return nil }
            let digest = hash(1)
            if rest.count == 2, digest == nil { return nil }
            if input == .message, digest == nil { return nil }
            self = .ecdsa(input: input, hash: digest, format: format)
        case ("sign", "RSA"):  // not a schema code
            guard let mode = rest.first else { return nil }
            switch mode {
            case "raw" where rest.count == 1: self = .rsaSignature(input: .digest, padding: .raw)
            case "digest-PKCS1v15" where rest.count == 1: self = .rsaSignature(input: .digest, padding: .pkcs1v15(nil))
            case "digest-PKCS1v15", "message-PKCS1v15":
                guard rest.count == 2, let digest = hash(1) else { return nil }
                self = .rsaSignature(input: mode.hasPrefix("digest") ? .digest : .message, padding: .pkcs1v15(digest))
            case "digest-PSS", "message-PSS":
                // Apple's form is <hash>:<mgf1 hash>:<salt length>; the salt is the hash's size (Apple's SHA-224 id says 24).
                guard rest.count == 4, let digest = hash(1), hash(2) == digest else { return nil }
                self = .rsaSignature(input: mode.hasPrefix("digest") ? .digest : .message, padding: .pss(digest))
            default: return nil
            }
        case ("encrypt", "RSA"):
            switch rest {
            case ["raw"]: self = .rsaEncryption(padding: .raw, aesGCM: false)
            case ["PKCS1"]: self = .rsaEncryption(padding: .pkcs1, aesGCM: false)
            default:
                guard rest.first == "OAEP", let digest = hash(1),
                    rest.count == 2 || (rest.count == 3 && rest[2] == "AESGCM")
                else { return nil }
                self = .rsaEncryption(padding: .oaep(digest), aesGCM: rest.count == 3)
            }
        case ("encrypt", "ECIES"):
            guard rest.count == 4, ["ECDH", "ECDHC"].contains(rest[0]), rest[1] == "KDFX963", let digest = hash(2),
                ["AESGCM", "AESGCM-KDFIV"].contains(rest[3])
            else { return nil }
            let variableIV = rest[3] == "AESGCM-KDFIV"
            if variableIV, digest == .sha1 { return nil }  // Apple defines no SHA-1 variable-IV variant
            self = .ecies(cofactor: rest[0] == "ECDHC", hash: digest, variableIV: variableIV)
        case ("keyexchange", "ECDH"), ("keyexchange", "ECDHC"):
            let cofactor = parts[2] == "ECDHC"
            if rest.isEmpty { self = .ecdh(cofactor: cofactor, kdf: nil); return }
            guard rest.count == 2, rest[0] == "KDFX963", let digest = hash(1) else { return nil }
            self = .ecdh(cofactor: cofactor, kdf: digest)
        default:
            return nil
        }
    }
}

/// The two asymmetric key types.
enum KeyKind: Equatable { case ec, rsa }
