// P-256 signing of a 64-byte message: swift-crypto directly (the anchor), SecKeyCreateSignature with a
// software key, and with a Secure Enclave key (one request to the engine per signature).
import Benchmark
import Crypto
import Foundation
import Security

let message = Data(repeating: 0x5A, count: 64)
let nativeKey = P256.Signing.PrivateKey()

let givenVault = ProcessInfo.processInfo.environment["KEYCHAIN_VAULT"]
let vault =
    givenVault
    ?? {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kcfs-key-bench-\(getpid())").path
        setenv("KEYCHAIN_VAULT", path, 1)
        return path
    }()

func makeKey(_ extra: [CFString: Any]) -> SecKey {
    var parameters: [CFString: Any] = [kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256]
    parameters.merge(extra) { $1 }
    var error: Unmanaged<CFError>?
    guard let key = SecKeyCreateRandomKey(parameters as CFDictionary, &error) else {
        fatalError("key generation failed: \(String(describing: error))")
    }
    return key
}

let softwareKey = makeKey([:])
let enclaveKey = makeKey([kSecAttrTokenID: kSecAttrTokenIDSecureEnclave])

benchmark("P-256 sign: swift-crypto directly") {
    _ = try nativeKey.signature(for: message)
}

benchmark("P-256 sign: SecKeyCreateSignature (software key)") {
    guard SecKeyCreateSignature(softwareKey, .ecdsaSignatureMessageX962SHA256, message as CFData, nil) != nil else {
        fatalError("sign failed")
    }
}

benchmark(
    "P-256 sign: SecKeyCreateSignature (Secure Enclave key, engine \(givenVault == nil ? "in-process" : "of KEYCHAIN_VAULT"))"
) {
    guard SecKeyCreateSignature(enclaveKey, .ecdsaSignatureMessageX962SHA256, message as CFData, nil) != nil else {
        fatalError("sign failed")
    }
}

Benchmark.main()
if givenVault == nil { try? FileManager.default.removeItem(atPath: vault) }
