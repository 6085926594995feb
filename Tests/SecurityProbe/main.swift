// security-probe: a separate process running the iOS-style client code against whatever vault
// KEYCHAIN_VAULT names, as an app talks to securityd. Used by the lock tests.
//   security-probe save SERVICE ACCOUNT SECRET ACCESSIBILITY   (ak, ck, …)
//   security-probe load SERVICE ACCOUNT                        → "value SECRET", "missing" or "error STATUS"
//   security-probe watch SERVICE ACCOUNT COUNT INTERVAL_MS     → one load line per interval, COUNT times
import Foundation
import Security

let arguments = CommandLine.arguments
let accessibility: [String: CFString] = [
    "ak": kSecAttrAccessibleWhenUnlocked, "ck": kSecAttrAccessibleAfterFirstUnlock, "dk": kSecAttrAccessibleAlways,
]

/// One load, as a line.
func loadLine(_ service: String, _ account: String) -> String {
    do {
        if let value = try GenericPasswordStore(service: service).load(account: account) { return "value \(value)" }
        return "missing"
    } catch KeychainError.interactionNotAllowed {
        return "error \(errSecInteractionNotAllowed)"
    } catch KeychainError.unhandled(let status) {
        return "error \(status)"
    } catch {
        return "error \(error)"
    }
}

do {
    switch arguments.dropFirst().first {
    case "save" where arguments.count == 6:
        try GenericPasswordStore(service: arguments[2]).save(
            arguments[4], account: arguments[3], accessible: accessibility[arguments[5]]!)
        print("saved")
    case "load" where arguments.count == 4:
        print(loadLine(arguments[2], arguments[3]))
    case "watch" where arguments.count == 6:
        for _ in 0..<(Int(arguments[4]) ?? 0) {
            // unbuffered: the watcher reads as it goes
            FileHandle.standardOutput.write(Data((loadLine(arguments[2], arguments[3]) + "\n").utf8))
            usleep(UInt32(Int(arguments[5]) ?? 100) * 1000)
        }
    default:
        FileHandle.standardError.write(Data("usage: security-probe save|load|watch …\n".utf8))
        exit(2)
    }
} catch KeychainError.interactionNotAllowed {
    print("error \(errSecInteractionNotAllowed)")
} catch {
    print("error \(error)")
}
