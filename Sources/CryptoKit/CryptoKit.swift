// CryptoKit on Linux: everything of swift-crypto's `Crypto` (the same API as Apple's CryptoKit), plus
// `SecureEnclave` backed by the keychain's simulated Secure Enclave (SecureEnclave.swift).
@_exported import Crypto
