import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing

/// One row of docs/authentication-table.md.
struct AuthenticationCase: Sendable, CustomTestStringConvertible {
    var flags: String, device: String, answer: String, prompt: Bool, status: OSStatus, laError: String
    var testDescription: String { "\(flags) | \(device) | \(answer)" }

    /// Every row between the table markers of docs/authentication-table.md.
    static let all: [AuthenticationCase] = {
        let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../docs/authentication-table.md")
        let text = (try? String(contentsOf: doc, encoding: .utf8)) ?? ""
        guard let start = text.range(of: "<!-- table:begin"), let end = text.range(of: "<!-- table:end") else {
            return []
        }
        return text[start.upperBound..<end.lowerBound].split(separator: "\n").dropFirst(3).compactMap { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 6, let status = OSStatus(cells[4]) else { return nil }
            return AuthenticationCase(
                flags: cells[0], device: cells[1], answer: cells[2], prompt: cells[3] == "yes", status: status,
                laError: cells[5])
        }
    }()

    static let bits: [String: Int64] = [
        "userPresence": 1 << 0, "biometryAny": 1 << 1, "biometryCurrentSet": 1 << 3, "devicePasscode": 1 << 4,
        "watch": 1 << 5,
        "or": 1 << 14, "and": 1 << 15, "privateKeyUsage": 1 << 30, "applicationPassword": 1 << 31,
    ]

    var flagBits: Int64 {
        var result: Int64 = 0
        for name in flags.split(separator: ",") { result |= Self.bits[String(name)] ?? 0 }
        return result
    }

    static let laNumbers: [String: Int] = [
        "authenticationFailed": -1, "userCancel": -2, "userFallback": -3, "passcodeNotSet": -5,
        "biometryNotEnrolled": -7,
        "biometryLockout": -8, "watchNotAvailable": -11,
    ]
}

/// The authentication table, cell by cell, through the engine's read policy (docs/spec.md §11).
@Suite struct AuthenticationTableTests {
    static let passcode = Data("1234".utf8)

    @Test func theTableIsThere() {
        #expect(AuthenticationCase.all.count >= 50)
    }

    @Test(arguments: AuthenticationCase.all)
    func cell(_ c: AuthenticationCase) throws {
        let v = try TestVault()
        let k = v.keychain
        k.prompts.autoMode = .off
        k.prompts.timeout = 0.3
        if c.device != "nopass" { try k.setPasscode(Self.passcode) }
        if ["enrolled", "reenrolled", "lockout"].contains(c.device) { try k.enrollBiometry() }
        if c.device == "lockout" { try Self.lockOut(k) }
        // An item with an application password is made with it (rule 8); the row's answer says what the reader gives.
        let made = c.flags.contains("applicationPassword") ? Self.context(Self.password) : [:]
        _ = try v.add(genp("svc", "acct", ["v_Data": data("token"), "accc": .number(c.flagBits)]).merging(made) { $1 })
        if c.device == "reenrolled" { usleep(5_000); try k.enrollBiometry() }

        // Attribute-only: never a prompt.
        let before = k.prompts.raisedCount
        #expect(v.status { _ = try v.copy(genp("svc", "acct", ["r_Attributes": true])) } == 0)
        #expect(k.prompts.raisedCount == before)

        queue(c.answer, on: k)
        let given: KeychainDictionary =
            c.answer.hasPrefix("credential")
            ? Self.context(Self.password)
            : c.answer.hasPrefix("wrong-credential") ? Self.context(Data("not it".utf8)) : [:]
        let read = Result { () throws(KeychainError) in
            try v.copy(genp("svc", "acct", ["r_Data": true]).merging(given) { $1 })?.dataValue ?? Data()
        }
        let status: OSStatus =
            switch read {
            case .success(let d): d == Data("token".utf8) ? 0 : -1;
            case .failure(let e): e.status
            }
        #expect(status == c.status, "OSStatus")
        #expect((k.prompts.raisedCount > before) == c.prompt, "prompt raised")

        // The same answers again, straight to the entry point, for the LAError.
        let attributes = try #require(try v.copy(genp("svc", "acct", ["r_Attributes": true]))?.dictionaryValue)
        queue(c.answer, on: k)
        let options = AuthenticationOptions(applicationPassword: given.isEmpty ? nil : Self.password)
        let outcome = k.authorize(
            AuthorizationRequest(
                item: attributes, itemClass: "genp", use: .readSecret, caller: v.caller, options: options))
        switch outcome {
        case .granted:
            #expect(
                c.status == 0 || c.answer.hasPrefix("wrong-credential"),
                "a wrong password is found when the secret is opened")
        case .skipped: Issue.record("skipped without UI Skip")
        case .denied(let failure):
            #expect(failure.status == c.status)
            if c.laError != "-" { #expect(failure.laError == AuthenticationCase.laNumbers[c.laError], "LAError") }
        }
    }

    static let password = Data("app password".utf8)

    /// kSecUseAuthenticationContext of an LAContext with `password` set as its application password.
    static func context(_ password: Data) -> KeychainDictionary {
        ["u_AuthCtx": .dictionary([AuthenticationOptions.ContextKey.credential: .data(password)])]
    }

    private func queue(_ answer: String, on k: Keychain) {
        for part in answer.split(separator: "+") {
            let a: PromptAnswer? =
                switch part {
                case "match": .match
                case "no-match": .noMatch
                case "cancel": .cancel
                case "passcode": .passcode(Self.passcode)
                default: nil  // "none": nobody answers, the prompt times out; "-": no prompt expected
                }
            if let a { _ = try? k.prompts.answer(a, next: true) }
        }
    }

    /// Five no-matches on biometric evaluations lock biometry out (rule 4).
    static func lockOut(_ k: Keychain) throws {
        k.prompts.autoMode = .noMatch
        for _ in 0..<5 { _ = evaluate(k, .deviceOwnerAuthenticationWithBiometrics) }
        k.prompts.autoMode = .off
        #expect(k.biometryStatus().lockedOut)
    }

    static func evaluate(_ k: Keychain, _ policy: AuthenticationPolicy, options: AuthenticationOptions = .init())
        -> Result<Data, AuthenticationFailure>
    {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<Data, AuthenticationFailure>?
        k.evaluatePolicy(policy, options: options, caller: Caller()) { r in
            result = r; done.signal()
        }
        _ = done.wait(timeout: .now() + 10)
        return result ?? .failure(AuthenticationFailure(-1, nil, "no answer within 10 s"))
    }
}
