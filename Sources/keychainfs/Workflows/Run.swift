import ArgumentParser
import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSSecretReferences

/// `keychainfs run`: a command with secrets in its environment (docs/spec.md §13). Every reference is resolved
/// before the command starts; then this process becomes the command (execvp), so its terminal, process
/// group, signals and exit status are the command's own, untouched.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a command with environment variables resolved from keychain items.",
        discussion: """
            References are written with the mount's names: kc://genp/<service>/<account>, \
            kc://inet/<server>/<account;qualifiers>, optionally #kSecAttrLabel (any attribute constant) for an \
            attribute instead of the secret. Every reference is resolved before COMMAND starts; if one cannot be, \
            nothing runs and keychainfs exits with the OSStatus's low byte, as the security verbs do: 44 when an \
            item does not exist, 36 when its class is locked (errSecInteractionNotAllowed), 50 for a malformed \
            name; 64 for a malformed reference or option; 126 when COMMAND cannot be run and 127 when it is not found. \
            Then keychainfs becomes COMMAND: its exit status and signals are COMMAND's.
            """)

    @Option(
        name: .long, help: ArgumentHelp("A variable: NAME=kc://… (or NAME=literal). Repeatable.", valueName: "NAME=REF")
    )
    var env: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp("A file of NAME=VALUE lines (# comments, optional 'export ').", valueName: "FILE"))
    var envFile: [String] = []

    @OptionGroup var vault: WorkflowVault

    @Argument(parsing: .postTerminator, help: "The command and its arguments (after --).")
    var command: [String] = []

    func validate() throws {
        if command.isEmpty {
            throw ValidationError("say which command to run: keychainfs run [--env NAME=REF]… -- COMMAND [ARG]…")
        }
    }

    func run() throws {
        let spec = try environmentSpec()
        var environment = ProcessInfo.processInfo.environment
        var values: [SecretReference: Data] = [:]
        let references = spec.variables.compactMap { if case .reference(let r) = $0.value { r } else { nil } }
        if !references.isEmpty {
            let resolver = try vault.resolver()
            for reference in references where values[reference] == nil {
                do { values[reference] = try resolver.bytes(reference) } catch {
                    throw failWorkflow(
                        "run", "\(error.description); \(command[0]) was not started", code: error.exitCode)
                }
            }
        }
        // In the order given, so a later variable of the same name wins.
        for (name, value) in spec.variables {
            switch value {
            case .literal(let text): environment[name] = text
            case .reference(let reference):
                let bytes = values[reference]!
                guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
                    throw failWorkflow(
                        "run",
                        "\(reference) for \(name): the value is binary (NUL or not UTF-8) and cannot be an environment variable; use inject",
                        code: ExitCode(Int32(UInt8(truncatingIfNeeded: SecStatus.param))))
                }
                environment[name] = text
            }
        }
        try ProcessReplacement.exec(command, environment: environment)
    }

    private func environmentSpec() throws -> EnvironmentSpec {
        var spec = EnvironmentSpec()
        do {
            for file in envFile {
                let text = try WorkflowFile.text(file, kind: "env file", verb: "run")
                do { spec.variables += try EnvironmentSpec.parseFile(text).variables } catch {
                    throw WorkflowFile.refuse("run", "\(file): \(error)")
                }
            }
            for assignment in env { spec.variables.append(try EnvironmentSpec.parseAssignment(assignment)) }
        } catch let error as ReferenceSyntaxError {
            throw WorkflowFile.refuse("run", "--env: \(error)")
        }
        return spec
    }
}
