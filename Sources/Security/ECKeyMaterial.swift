import Crypto
import Foundation

/// An elliptic-curve key on P-256, P-384 or P-521, by swift-crypto, in Apple's x9.63 forms: public
/// 04‖X‖Y, private 04‖X‖Y‖K.
enum ECKeyMaterial: Sendable {
    case p256Public(P256.Signing.PublicKey), p384Public(P384.Signing.PublicKey), p521Public(P521.Signing.PublicKey)
    case p256Private(P256.Signing.PrivateKey), p384Private(P384.Signing.PrivateKey), p521Private(
        P521.Signing.PrivateKey)

    /// The curves' coordinate sizes in bytes (Apple's block sizes), by key size in bits.
    static let coordinateBytes: [Int: Int] = [256: 32, 384: 48, 521: 66]

    /// A new private key of `bits` (256, 384 or 521).
    static func generate(bits: Int) -> ECKeyMaterial? {
        switch bits {
        case 256: .p256Private(P256.Signing.PrivateKey())
        case 384: .p384Private(P384.Signing.PrivateKey())
        case 521: .p521Private(P521.Signing.PrivateKey())
        default: nil
        }
    }

    /// The key in Apple's external representation; nil if the bytes are not one (a private key's K must
    /// match its X‖Y).
    init?(x963 data: Data, isPrivate: Bool) {
        let parts = isPrivate ? 3 : 2
        guard data.first == 0x04, (data.count - 1) % parts == 0 else { return nil }
        let size = (data.count - 1) / parts
        let publicBytes = data.prefix(1 + 2 * size)
        do {
            switch (size, isPrivate) {
            case (32, false): self = .p256Public(try .init(x963Representation: publicBytes))
            case (48, false): self = .p384Public(try .init(x963Representation: publicBytes))
            case (66, false): self = .p521Public(try .init(x963Representation: publicBytes))
            case (32, true): self = .p256Private(try .init(rawRepresentation: data.suffix(size)))
            case (48, true): self = .p384Private(try .init(rawRepresentation: data.suffix(size)))
            case (66, true): self = .p521Private(try .init(rawRepresentation: data.suffix(size)))
            default: return nil
            }
        } catch { return nil }
        if isPrivate, publicKey.x963 != Data(publicBytes) { return nil }
    }

    var isPrivate: Bool {
        switch self {
        case .p256Private, .p384Private, .p521Private: true
        default: false
        }
    }

    /// Bits of the curve (kSecAttrKeySizeInBits).
    var bits: Int {
        switch self {
        case .p256Public, .p256Private: 256
        case .p384Public, .p384Private: 384
        case .p521Public, .p521Private: 521
        }
    }

    /// Bytes of a coordinate (SecKeyGetBlockSize).
    var coordinateSize: Int { Self.coordinateBytes[bits]! }

    /// The public half.
    var publicKey: ECKeyMaterial {
        switch self {
        case .p256Private(let k): .p256Public(k.publicKey)
        case .p384Private(let k): .p384Public(k.publicKey)
        case .p521Private(let k): .p521Public(k.publicKey)
        default: self
        }
    }

    /// Apple's external representation.
    var x963: Data {
        switch self {
        case .p256Public(let k): k.x963Representation
        case .p384Public(let k): k.x963Representation
        case .p521Public(let k): k.x963Representation
        case .p256Private(let k): k.publicKey.x963Representation + k.rawRepresentation
        case .p384Private(let k): k.publicKey.x963Representation + k.rawRepresentation
        case .p521Private(let k): k.publicKey.x963Representation + k.rawRepresentation
        }
    }

    /// An ECDSA signature (DER) of a digest given as bytes (truncated to the order's size, X9.62).
    func sign(digest: Data) throws(KeyFailure) -> Data {
        let d = RawDigest(digest)
        do {
            switch self {
            case .p256Private(let k): return try k.signature(for: d).derRepresentation
            case .p384Private(let k): return try k.signature(for: d).derRepresentation
            case .p521Private(let k): return try k.signature(for: d).derRepresentation
            default: throw KeyFailure(errSecParam, "a public key cannot sign")
            }
        } catch let failure as KeyFailure { throw failure } catch {
            throw KeyFailure(errSecInternal, "ECDSA signing failed: \(error)")
        }
    }

    /// Whether `der` is a valid ECDSA signature of `digest`.
    func verify(digest: Data, der: Data) -> Bool {
        let d = RawDigest(digest)
        switch publicKey {
        case .p256Public(let k):
            return (try? P256.Signing.ECDSASignature(derRepresentation: der)).map { k.isValidSignature($0, for: d) }
                ?? false
        case .p384Public(let k):
            return (try? P384.Signing.ECDSASignature(derRepresentation: der)).map { k.isValidSignature($0, for: d) }
                ?? false
        case .p521Public(let k):
            return (try? P521.Signing.ECDSASignature(derRepresentation: der)).map { k.isValidSignature($0, for: d) }
                ?? false
        default: return false
        }
    }

    /// The ECDH shared secret (the x coordinate) with `peer`, a public key on the same curve.
    func sharedSecret(with peer: ECKeyMaterial) throws(KeyFailure) -> Data {
        do {
            switch (self, peer.publicKey) {
            case (.p256Private(let k), .p256Public(let p)):
                return try P256.KeyAgreement.PrivateKey(rawRepresentation: k.rawRepresentation)
                    .sharedSecretFromKeyAgreement(with: .init(x963Representation: p.x963Representation)).withUnsafeBytes
                { Data($0) }
            case (.p384Private(let k), .p384Public(let p)):
                return try P384.KeyAgreement.PrivateKey(rawRepresentation: k.rawRepresentation)
                    .sharedSecretFromKeyAgreement(with: .init(x963Representation: p.x963Representation)).withUnsafeBytes
                { Data($0) }
            case (.p521Private(let k), .p521Public(let p)):
                return try P521.KeyAgreement.PrivateKey(rawRepresentation: k.rawRepresentation)
                    .sharedSecretFromKeyAgreement(with: .init(x963Representation: p.x963Representation)).withUnsafeBytes
                { Data($0) }
            default:
                throw KeyFailure(errSecParam, "key exchange needs a private key and a public key on the same curve")
            }
        } catch let failure as KeyFailure { throw failure } catch {
            throw KeyFailure(errSecParam, "ECDH failed: \(error)")
        }
    }
}

/// A digest given as bytes, for swift-crypto's ECDSA over digests of any hash (its signing reads only
/// the bytes; `byteCount` is not consulted).
struct RawDigest: Digest {
    static var byteCount: Int { 0 }
    let bytes: [UInt8]
    init(_ data: Data) { bytes = [UInt8](data) }
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
    func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
    var description: String { "RawDigest(\(bytes.count) bytes)" }
}
