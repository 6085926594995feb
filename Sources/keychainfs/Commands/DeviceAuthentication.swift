import ArgumentParser
import Foundation
import KeychainEngine
import KeychainModel

/// `keychainfs device biometry …`: enrol, remove or show the simulated Face ID (docs/spec.md §11).
struct Biometry: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "biometry", abstract: "Enrol or remove the simulated Face ID, or show its state.",
        subcommands: [Enroll.self, Unenroll.self, Status.self])

    struct Enroll: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enroll", abstract: "Enrol a face (again: items bound to .biometryCurrentSet become unusable)."
        )
        @OptionGroup var address: DaemonAddress
        func run() throws { Biometry.print(try address.send(.biometryEnroll)) }
    }

    struct Unenroll: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unenroll", abstract: "Remove the enrolled face.")
        @OptionGroup var address: DaemonAddress
        func run() throws { Biometry.print(try address.send(.biometryUnenroll)) }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Enrolment, lockout, failures, automatic answer.")
        @OptionGroup var address: DaemonAddress
        func run() throws { Biometry.print(try address.send(.biometryStatus)) }
    }

    static func print(_ value: KeychainValue?) {
        let d = value?.dictionaryValue ?? [:]
        Swift.print("biometry: \(d["enrolled"] == .bool(true) ? "enrolled (Face ID)" : "not enrolled")")
        Swift.print("locked out: \(d["lockedOut"] == .bool(true) ? "yes (enter the passcode)" : "no")")
        Swift.print("failed matches: \(d["failures"]?.numberValue ?? 0)")
        if let domain = d["domainState"]?.dataValue {
            Swift.print("domain state: \(domain.prefix(8).map { String(format: "%02x", $0) }.joined())")
        }
        if case .date(let last) = d["lastBiometricUnlock"] {
            Swift.print("last biometric unlock: \(ISO8601DateFormatter().string(from: last))")
        }
        Swift.print(
            "prompts answered automatically: \(d["autoAnswer"]?.stringValue ?? "?"); timeout \(d["promptTimeout"]?.numberValue ?? 0) s"
        )
    }
}

/// `keychainfs device prompt …`: answer authentication prompts from a script (docs/spec.md §11).
struct Prompt: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prompt",
        abstract: "Answer the oldest pending authentication prompt (or the next one), or set the automatic answer.",
        discussion: "Default: 'auto cancel', so an unattended run never hangs. Use 'auto off' to answer by hand.",
        subcommands: [Match.self, NoMatch.self, Cancel.self, Passcode.self, Accept.self, Auto.self, Timeout.self])

    struct Target: ParsableArguments {
        @OptionGroup var address: DaemonAddress
        @Flag(help: "Answer the next prompt to be raised, not one pending now.") var next = false
        func send(_ answer: String, _ extra: KeychainDictionary = [:]) throws {
            var args: KeychainDictionary = ["answer": .string(answer), "next": .bool(next)]  // not a schema code
            args.merge(extra) { $1 }
            if let prompt = try address.send(.promptAnswer, args)?.dictionaryValue {
                print(
                    "answered prompt \(prompt["id"]?.numberValue ?? 0) (\(TerminalText.escaped(prompt["item"]?.stringValue ?? ""))): \(answer)"
                )
            }
        }
    }

    struct Match: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "match", abstract: "A matching face.")
        @OptionGroup var target: Target
        func run() throws { try target.send("match") }
    }

    struct NoMatch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "no-match", abstract: "A face that does not match (counts toward the lockout).")
        @OptionGroup var target: Target
        func run() throws { try target.send("no-match") }
    }

    struct Cancel: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cancel", abstract: "Tap Cancel (errSecUserCanceled).")
        @OptionGroup var target: Target
        func run() throws { try target.send("cancel") }
    }

    struct Accept: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept",
            abstract: "What satisfies the prompt: a matching face where a face will do, else the device's passcode.")
        @OptionGroup var target: Target
        func run() throws { try target.send("accept") }
    }

    struct Passcode: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "passcode", abstract: "Type the device passcode.")
        @OptionGroup var target: Target
        @Flag(help: "Read the passcode from standard input.") var passcodeStdin = false
        func run() throws {
            var input = PasscodeInput(fromStdin: passcodeStdin)
            try target.send("passcode", ["passcode": .data(try input.next("Passcode: "))])
        }
    }

    struct Auto: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "auto",
            abstract:
                "Answer every prompt with MODE: match, no-match, cancel, accept (a face where one will do, else the passcode), or off."
        )
        @OptionGroup var address: DaemonAddress
        @Argument(help: "match, no-match, cancel, accept or off") var mode: String
        func run() throws {
            guard PromptAutoMode(rawValue: mode) != nil else {
                throw ValidationError("expected match, no-match, cancel, accept or off")
            }
            _ = try address.send(.promptAuto, ["mode": .string(mode)])
        }
    }

    struct Timeout: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "timeout", abstract: "Seconds before an unanswered prompt ends as a user cancel (default 30).")
        @OptionGroup var address: DaemonAddress
        @Argument var seconds: Int64
        func run() throws { _ = try address.send(.promptTimeout, ["seconds": .number(seconds)]) }
    }
}

/// `keychainfs device prompts`: the pending prompts, oldest first.
struct Prompts: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prompts", abstract: "List pending authentication prompts with their reason and caller.")
    @OptionGroup var address: DaemonAddress
    func run() throws {
        for prompt in try address.send(.prompts)?.arrayValue ?? [] {
            let d = prompt.dictionaryValue ?? [:]
            // The item, the executable and the reason come from callers: escaped for the terminal.
            let text = { (key: String) in TerminalText.escaped(d[key]?.stringValue ?? "") }
            let caller = d["pid"]?.numberValue.map { "pid \($0) \(text("executable"))" } ?? "unknown caller"
            print("\(d["id"]?.numberValue ?? 0)\t\(text("kind"))\t\(text("item"))\t\(caller)\t\(text("reason"))")
        }
    }
}
