/// Failures of the crypto core. None of them carries key or plaintext material.
package enum CryptoError: Error, Equatable, CustomStringConvertible {
    /// Authentication failed: wrong key, wrong associated data, or tampered ciphertext.
    case authenticationFailed
    /// A sealed box is shorter than nonce + tag.
    case truncated
    /// Key material of the wrong size.
    case badKeyLength(Int)
    /// Argon2id could not run (usually: not enough memory for the limits).
    case kdfFailed

    package var description: String {
        switch self {
        case .authenticationFailed: "ciphertext failed authentication"
        case .truncated: "ciphertext is truncated"
        case .badKeyLength(let n): "key material has \(n) bytes, expected \(GuardedKey.byteCount)"
        case .kdfFailed: "Argon2id key derivation failed"
        }
    }
}
