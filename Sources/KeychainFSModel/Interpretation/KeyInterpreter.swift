import Crypto
import Foundation
import SwiftASN1

/// The default kSecAttrApplicationLabel of a key: SHA-1 of its public key, as Apple computes it and as
/// a certificate's kSecAttrPublicKeyHash is computed, so that identities join (docs/reference/keychain-semantics.md §8).
/// EC keys in Apple's x963 form (04‖X‖Y, private keys 04‖X‖Y‖D) carry the public key in their first bytes;
/// RSA keys (PKCS#1 DER, public or private) give modulus and exponent, hashed as RSAPublicKey DER.
package enum KeyInterpreter {
    package static let interpreter = ValueInterpreter { data, attributes throws(KeychainError) in
        var derived = ValueInterpreter.Derived()
        let keyClass = attributes[Attributes.keyClass.code]?.numberValue ?? 0
        if let publicKey = publicKeyBytes(data, isPrivate: keyClass == 1) {
            derived.defaults[Attributes.applicationLabel.code] = .data(Data(Insecure.SHA1.hash(data: publicKey)))
        }
        return derived
    }

    /// The public key bytes as a certificate's subjectPublicKey holds them, or nil for other keys.
    package static func publicKeyBytes(_ data: Data, isPrivate: Bool) -> [UInt8]? {
        let bytes = [UInt8](data)
        if bytes.first == 0x04 {
            let parts = isPrivate ? 3 : 2
            guard (bytes.count - 1) % parts == 0, [32, 48, 66].contains((bytes.count - 1) / parts) else { return nil }
            return Array(bytes.prefix(1 + 2 * (bytes.count - 1) / parts))
        }
        guard let node = try? DER.parse(bytes), node.identifier == .sequence else { return nil }
        let integers = node.children.filter { $0.identifier == .integer }
        switch integers.count {
        case 2 where !isPrivate: return DEREncoding.sequence([integers[0].encodedBytes, integers[1].encodedBytes])
        case 9... where isPrivate: return DEREncoding.sequence([integers[1].encodedBytes, integers[2].encodedBytes])
        default: return nil
        }
    }
}
