import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// What computes with a key: an EC key (swift-crypto), an RSA key (libcrypto), or a Secure Enclave key
/// (a blob only the engine can use; its public half is here).
enum KeyMaterial: Sendable {
    case ec(ECKeyMaterial)
    case rsa(RSAKeyMaterial)
    case secureEnclave(SecureEnclaveKey)

    // kSecAttrKeyType and kSecAttrKeyClass values (SecItem.h).
    static let ecType: Int64 = 73, rsaType: Int64 = 42
    static let publicClass: Int64 = 0, privateClass: Int64 = 1, symmetricClass: Int64 = 2

    /// The key `data` stands for, by the type, class and token of `attributes`; nil if it is none.
    /// `authenticationContext`: the LAContext the key was made or found with (kSecUseAuthenticationContext),
    /// which a Secure Enclave key's operations carry to the engine.
    init?(
        attributes: KeychainDictionary, data: Data, persistentRef: Data?,
        authenticationContext: (any SecAuthenticationContextProviding)? = nil
    ) {
        let type = Self.integer(attributes[Attributes.keyType.code]),
            keyClass = Self.integer(attributes[Attributes.keyClass.code])
        guard keyClass == Self.publicClass || keyClass == Self.privateClass else { return nil }
        let isPrivate = keyClass == Self.privateClass
        if attributes[Attributes.tokenID.code] == .string(SecureEnclaveBlob.tokenID) {
            guard isPrivate, let publicBytes = SecureEnclaveBlob.publicKey(of: data),
                let publicKey = ECKeyMaterial(x963: publicBytes, isPrivate: false)
            else { return nil }
            self = .secureEnclave(
                SecureEnclaveKey(
                    blob: data, publicKey: publicKey, persistentRef: persistentRef,
                    accessibility: attributes[Attributes.accessible.code]?.stringValue,
                    authenticationContext: authenticationContext))
            return
        }
        switch type {
        case Self.ecType:
            guard let key = ECKeyMaterial(x963: data, isPrivate: isPrivate) else { return nil }; self = .ec(key)
        case Self.rsaType:
            guard let key = RSAKeyMaterial(pkcs1: data, isPrivate: isPrivate) else { return nil }; self = .rsa(key)
        default: return nil
        }
    }

    /// A number attribute that may arrive as its raw string ("73" for kSecAttrKeyTypeECSECPrimeRandom).
    static func integer(_ value: KeychainValue?) -> Int64? {
        switch value {
        case .number(let n)?: n
        case .string(let s)?: Int64(s)
        case .bool(let b)?: b ? 1 : 0
        default: nil
        }
    }

    var kind: KeyKind {
        switch self {
        case .ec, .secureEnclave: .ec
        case .rsa: .rsa
        }
    }

    var isPrivate: Bool {
        switch self {
        case .ec(let k): k.isPrivate
        case .rsa(let k): k.isPrivate
        case .secureEnclave: true
        }
    }

    var isToken: Bool { if case .secureEnclave = self { true } else { false } }

    var bits: Int {
        switch self {
        case .ec(let k): k.bits
        case .rsa(let k): k.bits
        case .secureEnclave: 256
        }
    }

    /// SecKeyGetBlockSize: an EC coordinate's bytes (32/48/66), an RSA modulus' bytes.
    var blockSize: Int {
        switch self {
        case .ec(let k): k.coordinateSize
        case .rsa(let k): k.blockSize
        case .secureEnclave: 32
        }
    }

    /// The public half.
    var publicMaterial: KeyMaterial {
        switch self {
        case .ec(let k): .ec(k.publicKey)
        case .rsa(let k): .rsa(k.publicKey)
        case .secureEnclave(let k): .ec(k.publicKey)
        }
    }

    /// Apple's external representation (a Secure Enclave key's is its blob, which is not exported).
    var externalRepresentation: Data {
        switch self {
        case .ec(let k): k.x963
        case .rsa(let k): k.pkcs1
        case .secureEnclave(let k): k.blob
        }
    }

    /// The attributes that say what the bytes are: class, type and sizes.
    var describingAttributes: KeychainDictionary {
        [
            Attributes.keyClass.code: .number(isPrivate ? Self.privateClass : Self.publicClass),
            Attributes.keyType.code: .number(kind == .ec ? Self.ecType : Self.rsaType),
            Attributes.keySizeInBits.code: .number(Int64(bits)), Attributes.effectiveKeySize.code: .number(Int64(bits)),
        ]
    }

    /// The public key's bytes as a certificate holds them, whose SHA-1 is kSecAttrApplicationLabel.
    var publicKeyBytes: Data {
        switch publicMaterial {
        case .ec(let k): k.x963
        case .rsa(let k): k.pkcs1
        case .secureEnclave(let k): k.publicKey.x963
        }
    }
}

/// A Secure Enclave key as its client holds it: the blob, the public key, and the item that stores it.
struct SecureEnclaveKey: Sendable {
    let blob: Data
    let publicKey: ECKeyMaterial
    let persistentRef: Data?
    let accessibility: String?
    /// kSecUseAuthenticationContext of the call that made or found the key: an evaluated LAContext is not
    /// asked again when the key signs, its application password opens the key's item.
    let authenticationContext: (any SecAuthenticationContextProviding)?

    var reference: SecureEnclaveCalls.Key {
        SecureEnclaveCalls.Key(
            blob: blob, persistentRef: persistentRef, accessibility: accessibility,
            authenticationContext: authenticationContext)
    }
}
