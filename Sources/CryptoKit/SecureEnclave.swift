import Foundation
import KeychainFSClient

/// Apple's `SecureEnclave` namespace: P-256 keys made and used by the simulated Secure Enclave of the
/// keychain this process reaches (a test's ``KeychainTesting`` device when one is bound, else the vault
/// of `KEYCHAIN_VAULT`, through its daemon if one serves it). The private key never enters this process.
public enum SecureEnclave {
    /// Whether the device has a Secure Enclave: the simulated one is part of every vault.
    public static var isAvailable: Bool { true }

    /// NIST P-256 inside the Secure Enclave.
    public enum P256 {
        /// ECDSA with keys that stay in the Secure Enclave.
        public enum Signing {}
        /// ECDH with keys that stay in the Secure Enclave.
        public enum KeyAgreement {}
    }
}
