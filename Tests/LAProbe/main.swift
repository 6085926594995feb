import Foundation
import LocalAuthentication
import Security

// la-probe: iOS Face ID code run against a keychainfs daemon (KEYCHAIN_VAULT), for the LAContext tests.
// Every line it prints is one result; the tests answer its prompts with `keychainfs device prompt`.

let arguments = CommandLine.arguments
let policies: [String: LAPolicy] = [
    "biometrics": .deviceOwnerAuthenticationWithBiometrics, "owner": .deviceOwnerAuthentication,
]

func policy(_ name: String) -> LAPolicy {
    guard let p = policies[name] else { print("unknown policy"); exit(2) }
    return p
}

func hex(_ data: Data?) -> String { data.map { $0.map { String(format: "%02x", $0) }.joined() } ?? "nil" }

/// Apple's pattern: the LAError code by name.
func describe(_ error: any Error) -> String {
    if let e = error as? LAError {
        switch e.code {
        case .biometryLockout: return "LAError biometryLockout"
        case .userCancel: return "LAError userCancel"
        case .authenticationFailed: return "LAError authenticationFailed"
        case .invalidContext: return "LAError invalidContext"
        case .notInteractive: return "LAError notInteractive"
        default: return "LAError \(e.code.rawValue)"
        }
    }
    return "error \(error)"
}

func read(_ service: String, _ account: String, context: LAContext? = nil) -> String {
    var query: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
        kSecAttrAccount as String: account, kSecReturnData as String: true,
        kSecUseOperationPrompt as String: "Unlock your token",
    ]
    if let context { query[kSecUseAuthenticationContext as String] = context }
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    if status == errSecSuccess, let data = result as? Data { return "secret " + String(decoding: data, as: UTF8.self) }
    return "status \(status)"
}

func evaluateSync(_ context: LAContext, _ p: LAPolicy) -> String {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var line = ""
    context.evaluatePolicy(p, localizedReason: "Sign in") { ok, error in
        line = ok ? "ok" : describe(error!)
        done.signal()
    }
    return done.wait(timeout: .now() + 60) == .success ? line : "no reply"
}

switch arguments.dropFirst().first {
case "can" where arguments.count == 3:
    let context = LAContext()
    var error: NSError?
    let ok = context.canEvaluatePolicy(policy(arguments[2]), error: &error)
    print(
        ok
            ? "yes \(context.biometryType == .faceID ? "faceID" : "none")"
            : "no \(error?.domain ?? "") \(error?.code ?? 0)")
    print("domain \(hex(context.evaluatedPolicyDomainState))")
case "evaluate" where arguments.count >= 3:
    let context = LAContext()
    if arguments.count == 4 { context.touchIDAuthenticationAllowableReuseDuration = TimeInterval(arguments[3]) ?? 0 }
    print(evaluateSync(context, policy(arguments[2])))
case "evaluate-async" where arguments.count == 3:
    let context = LAContext()
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var line = ""
    Task.detached {
        do {
            line = try await context.evaluatePolicy(policy(arguments[2]), localizedReason: "Sign in") ? "ok" : "false"
        } catch let error as LAError {
            line = describe(error)
        } catch {
            line = "error"
        }
        done.signal()
    }
    print(done.wait(timeout: .now() + 60) == .success ? line : "no reply")
case "save" where arguments.count == 6:
    var error: Unmanaged<CFError>?
    let flags = SecAccessControlCreateFlags(rawValue: CFOptionFlags(arguments[5]) ?? 0)
    let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, flags, &error)!
    let add: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: arguments[2],
        kSecAttrAccount as String: arguments[3], kSecValueData as String: Data(arguments[4].utf8),
        kSecAttrAccessControl as String: access,
    ]
    print("status \(SecItemAdd(add as CFDictionary, nil))")
case "read" where arguments.count == 4:
    print(read(arguments[2], arguments[3]))
case "context-read" where arguments.count == 4:
    let context = LAContext()
    print(evaluateSync(context, .deviceOwnerAuthenticationWithBiometrics))
    print(read(arguments[2], arguments[3], context: context))
    print(read(arguments[2], arguments[3], context: context))
    context.invalidate()
    print(read(arguments[2], arguments[3], context: context))
    print(evaluateSync(context, .deviceOwnerAuthenticationWithBiometrics))
case "password-save" where arguments.count == 6:
    // The application password comes on stdin (never in argv); the item is made with it, as an app does.
    // No line: a context without a credential.
    let context = LAContext()
    if let password = readLine() { _ = context.setCredential(Data(password.utf8), type: .applicationPassword) }
    var error: Unmanaged<CFError>?
    let flags = SecAccessControlCreateFlags(rawValue: CFOptionFlags(arguments[5]) ?? 0)
    let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked, flags, &error)!
    let add: [String: Any] = [
        kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: arguments[2],
        kSecAttrAccount as String: arguments[3], kSecValueData as String: Data(arguments[4].utf8),
        kSecAttrAccessControl as String: access, kSecUseAuthenticationContext as String: context,
    ]
    print("status \(SecItemAdd(add as CFDictionary, nil))")
case "password-read" where arguments.count == 4:
    // One line on stdin: the password to set on the context; no line: a context without a credential.
    let context = LAContext()
    if let password = readLine() { _ = context.setCredential(Data(password.utf8), type: .applicationPassword) }
    print("credential \(context.isCredentialSet(.applicationPassword))")
    print(read(arguments[2], arguments[3], context: context))
case "se-context" where arguments.count == 4:
    // SE-KEY-TAG FLAGS: a Secure Enclave key made with FLAGS (the application password, if a line comes on stdin,
    // set on the context it is made with); then signatures by the key as made, as found with an evaluated context
    // (evaluated first if FLAGS ask for biometry), as found without one, and with the context invalidated.
    let tag = Data(arguments[2].utf8)
    let flags = SecAccessControlCreateFlags(rawValue: CFOptionFlags(arguments[3]) ?? 0)
    let context = LAContext()
    if let password = readLine() { _ = context.setCredential(Data(password.utf8), type: .applicationPassword) }
    var error: Unmanaged<CFError>?
    let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, flags, &error)!
    let attributes: [String: Any] = [
        kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
        kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave, kSecUseAuthenticationContext as String: context,
        kSecPrivateKeyAttrs as String: [
            kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: tag,
            kSecAttrAccessControl as String: access,
        ] as [String: Any],
    ]
    guard let made = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
        print("create \((error!.takeRetainedValue() as Error as NSError).code)")
        exit(0)
    }
    func sign(_ key: SecKey) -> String {
        var error: Unmanaged<CFError>?
        let ok = SecKeyCreateSignature(key, .ecdsaSignatureMessageX962SHA256, Data("m".utf8) as CFData, &error) != nil
        return ok ? "signed" : "sign \((error!.takeRetainedValue() as Error as NSError).code)"
    }
    func find(_ context: LAContext?) -> SecKey? {
        var query: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: tag, kSecReturnRef as String: true,
        ]
        if let context { query[kSecUseAuthenticationContext as String] = context }
        var item: CFTypeRef?
        return SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess ? (item as! SecKey) : nil
    }
    if flags.contains(.biometryAny) { print(evaluateSync(context, .deviceOwnerAuthenticationWithBiometrics)) }
    print("made: " + sign(made))
    let found = find(context)!
    print("found with the context: " + sign(found) + " " + sign(found))
    print("found without: " + (find(nil).map(sign) ?? "not found"))
    context.invalidate()
    print("invalidated: " + sign(found))
default:
    print(
        "usage: la-probe can|evaluate|evaluate-async POLICY | save SVC ACCT SECRET FLAGS | read SVC ACCT | context-read SVC ACCT"
    )
    print(
        "       la-probe password-save SVC ACCT SECRET FLAGS | password-read SVC ACCT  (the application password on stdin)"
    )
    print("       la-probe se-context TAG FLAGS  (an application password on stdin, if any)")
    exit(2)
}
