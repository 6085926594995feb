// security-probe: a separate process running the iOS-style client code against whatever vault
// KEYCHAIN_VAULT names, as an app talks to securityd. Used by the lock tests.
//   security-probe save SERVICE ACCOUNT SECRET ACCESSIBILITY   (ak, ck, …)
//   security-probe load SERVICE ACCOUNT                        → "value SECRET", "missing" or "error STATUS"
import Foundation
import Security

let arguments = CommandLine.arguments
let accessibility: [String: CFString] = [
    "ak": kSecAttrAccessibleWhenUnlocked, "ck": kSecAttrAccessibleAfterFirstUnlock, "dk": kSecAttrAccessibleAlways,
]
do {
    switch arguments.dropFirst().first {
    case "save" where arguments.count == 6:
        try GenericPasswordStore(service: arguments[2]).save(arguments[4], account: arguments[3], accessible: accessibility[arguments[5]]!)
        print("saved")
    case "load" where arguments.count == 4:
        if let value = try GenericPasswordStore(service: arguments[2]).load(account: arguments[3]) { print("value \(value)") } else { print("missing") }
    default:
        FileHandle.standardError.write(Data("usage: security-probe save|load …\n".utf8))
        exit(2)
    }
} catch KeychainError.interactionNotAllowed {
    print("error \(errSecInteractionNotAllowed)")
} catch {
    print("error \(error)")
}
