import Foundation
import Security

// iOS-style key code in a process of its own, against the vault named by KEYCHAIN_VAULT (its daemon's,
// when mounted). Prints one line per command, for the daemon tests:
//   seed002 RSA|EC                 generate a permanent pair with a tag, find, sign, verify, delete → "ok"
//   se-generate TAG                a Secure Enclave key stored under TAG → "generated"
//   se-sign TAG                    sign with it and verify with its public key → "verified" or "error CODE"
//   se-export TAG                  try to export it → "refused CODE" (or "exported", a failure)
//   se-delete TAG                  → "deleted" or "error CODE"

func tagged(
    _ tag: String, _ tokenID: CFString? = nil, _ type: CFString = kSecAttrKeyTypeECSECPrimeRandom, _ bits: Int = 256
) -> TaggedKeyPair {
    TaggedKeyPair(tag: Data(tag.utf8), keyType: type, bits: bits, tokenID: tokenID)
}

func describe(_ error: Error) -> String {
    switch error {
    case TaggedKeyPair.Failure.status(let status): return "error \(status)"
    case TaggedKeyPair.Failure.error(let inner): return "error \((inner as NSError).code)"
    default: return "error \(error)"
    }
}

let arguments = CommandLine.arguments.dropFirst()
let command = arguments.first ?? ""
let operand = arguments.dropFirst().first ?? ""
do {
    switch command {
    case "seed002":
        let pair =
            operand == "RSA"
            ? tagged("seed002.rsa.\(getpid())", nil, kSecAttrKeyTypeRSA, 2048) : tagged("seed002.ec.\(getpid())")
        try pair.generate()
        let message = Data("seed 002 (docs/sources.md)".utf8)
        let signature = try pair.sign(message)
        var tampered = signature
        tampered[tampered.count / 2] ^= 1
        let good = try pair.verify(message, signature), bad = try pair.verify(message, tampered)
        print(good && !bad && pair.delete() == errSecSuccess ? "ok" : "failed")
    case "se-generate":
        try tagged(operand, kSecAttrTokenIDSecureEnclave).generate()
        print("generated")
    case "se-sign":
        let pair = tagged(operand, kSecAttrTokenIDSecureEnclave)
        let message = Data("signed inside the enclave".utf8)
        print(try pair.verify(message, try pair.sign(message)) ? "verified" : "not verified")
    case "se-export":
        var error: Unmanaged<CFError>?
        let exported = SecKeyCopyExternalRepresentation(try tagged(operand).find(), &error)
        print(exported == nil ? "refused \(error.map { CFErrorGetCode($0.takeRetainedValue()) } ?? 0)" : "exported")
    case "se-delete":
        let status = tagged(operand).delete()
        print(status == errSecSuccess ? "deleted" : "error \(status)")
    default:
        print("usage: seckey-probe seed002|se-generate|se-sign|se-export|se-delete ARG")
        exit(2)
    }
} catch {
    print(describe(error))
}
