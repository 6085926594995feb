import ArgumentParser
import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel

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
        func run() throws { Biometry.print(try address.call(BiometryEnroll())) }
    }

    struct Unenroll: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "unenroll", abstract: "Remove the enrolled face.")
        @OptionGroup var address: DaemonAddress
        func run() throws { Biometry.print(try address.call(BiometryUnenroll())) }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status", abstract: "Enrolment, lockout, failures, automatic answer.")
        @OptionGroup var address: DaemonAddress
        func run() throws { Biometry.print(try address.call(BiometryStatusCall())) }
    }

    static func print(_ report: BiometryReport) {
        let b = report.biometry
        Swift.print("biometry: \(b.enrolled ? "enrolled (Face ID)" : "not enrolled")")
        Swift.print("locked out: \(b.lockedOut ? "yes (enter the passcode)" : "no")")
        Swift.print("failed matches: \(b.failures)")
        if let domain = b.domainState {
            Swift.print("domain state: \(domain.prefix(8).map { String(format: "%02x", $0) }.joined())")
        }
        if let last = b.lastBiometricUnlock {
            Swift.print("last biometric unlock: \(ISO8601DateFormatter().string(from: last))")
        }
        Swift.print(
            "prompts answered automatically: \(report.autoAnswer.rawValue); timeout \(report.promptTimeout) s")
    }
}

/// `keychainfs device prompt …`: answer authentication prompts from a script (docs/spec.md §11).
struct Prompt: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prompt",
        abstract: "Answer the oldest pending authentication prompt (or the next one), or set the automatic answer.",
        discussion: "Default: 'auto cancel', so an unattended run never hangs. Use 'auto off' to answer by hand.",
        subcommands: [Match.self, NoMatch.self, Cancel.self, Accept.self, Passcode.self, Auto.self, Timeout.self])

    struct Target: ParsableArguments {
        @OptionGroup var address: DaemonAddress
        @Flag(help: "Answer the next prompt to be raised, not one pending now.") var next = false
        func send(_ answer: PromptAnswer, _ name: String) throws {
            if let prompt = try address.call(PromptAnswerCall(answer, next: next)) {
                print("answered prompt \(prompt.id) (\(TerminalText.escaped(prompt.item ?? ""))): \(name)")
            }
        }
    }

    struct Match: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "match", abstract: "A matching face.")
        @OptionGroup var target: Target
        func run() throws { try target.send(.match, "match") }
    }

    struct NoMatch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "no-match", abstract: "A face that does not match (counts toward the lockout).")
        @OptionGroup var target: Target
        func run() throws { try target.send(.noMatch, "no-match") }
    }

    struct Cancel: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cancel", abstract: "Tap Cancel (errSecUserCanceled).")
        @OptionGroup var target: Target
        func run() throws { try target.send(.cancel, "cancel") }
    }

    struct Accept: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept",
            abstract: "What the prompt can be satisfied with: a matching face where one will do, else the passcode.")
        @OptionGroup var target: Target
        func run() throws { try target.send(.accept, "accept") }
    }

    struct Passcode: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "passcode", abstract: "Type the device passcode.")
        @OptionGroup var target: Target
        @Flag(help: "Read the passcode from standard input.") var passcodeStdin = false
        func run() throws {
            var input = PasscodeInput(fromStdin: passcodeStdin)
            try target.send(.passcode(try input.next("Passcode: ")), "passcode")
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
            guard let mode = PromptAutoMode(rawValue: mode) else {
                throw ValidationError("expected match, no-match, cancel, accept or off")
            }
            try address.call(PromptAutoCall(mode))
        }
    }

    struct Timeout: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "timeout", abstract: "Seconds before an unanswered prompt ends as a user cancel (default 30).")
        @OptionGroup var address: DaemonAddress
        @Argument var seconds: Int64
        func run() throws { try address.call(PromptTimeoutCall(seconds: seconds)) }
    }
}

/// `keychainfs device prompts`: the pending prompts, oldest first.
struct Prompts: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prompts", abstract: "List pending authentication prompts with their reason and caller.")
    @OptionGroup var address: DaemonAddress
    func run() throws {
        for prompt in try address.call(PendingPrompts()) {
            // The item, the executable and the reason come from callers: escaped for the terminal.
            let item = TerminalText.escaped(prompt.item ?? "")
            let caller =
                prompt.pid.map { "pid \($0) \(TerminalText.escaped(prompt.executable ?? ""))" } ?? "unknown caller"
            print("\(prompt.id)\t\(prompt.kind.rawValue)\t\(item)\t\(caller)\t\(TerminalText.escaped(prompt.reason))")
        }
    }
}
