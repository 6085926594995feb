import ArgumentParser
import Foundation
import KeychainFSSecretReferences

/// The text of a template or env file: read up to the size limit (docs/workflows.md: 1 MiB) and refused beyond it,
/// before any parsing and without reading the rest; only a regular file (`--env-file /dev/zero` or a FIFO ends at once).
enum WorkflowFile {
    /// The file at `path` (standard input for nil or `-`) as UTF-8; `kind` names it in errors, which `verb`
    /// prints (``refuse(_:_:)``).
    static func text(_ path: String?, kind: String, verb: String) throws -> String {
        let name = path.map { $0 == "-" ? "standard input" : $0 } ?? "standard input"
        let read: Data?
        do { read = try BoundedInput.read(path: path, limit: WorkflowText.maximumSize) } catch {
            throw refuse(verb, "cannot read the \(kind) \(name): \(error)")
        }
        guard let data = read else {
            throw refuse(
                verb,
                "the \(kind) \(name) is larger than 1 MiB (\(WorkflowText.maximumSize) bytes), the limit of a \(kind)")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw refuse(verb, "the \(kind) \(name) is not UTF-8")
        }
        return text
    }

    /// Prints why a template, an env file or an `--env` is refused, alone (the command line itself was right,
    /// so no usage block follows), and returns the usage error's status, 64.
    static func refuse(_ verb: String, _ message: String) -> ExitCode {
        failWorkflow(verb, message, code: .validationFailure)
    }
}
