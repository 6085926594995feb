import ArgumentParser
import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSSecretReferences

/// `keychainfs inject`: renders `{{ kc://… }}` references of a template into a file made 0600 atomically
/// (docs/spec.md §13), or onto standard output.
struct Inject: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inject",
        abstract: "Render {{ kc://… }} references in a template into a 0600 file, atomically.",
        discussion: """
            References are those of 'keychainfs run' (kc://genp/<service>/<account>[#kSecAttr…]). Every reference \
            is resolved before anything is written: if one cannot be, no file is written and the exit status is \
            the OSStatus's low byte (44 not found, 36 locked). The output is written to a temporary file in the \
            target's directory (mode 0600), synced and renamed over the target. An existing target that \
            keychainfs inject did not write (it marks its files with the xattr user.keychainfs.rendered-from) \
            is replaced only with --force.
            """)

    @Option(
        name: [.customShort("i"), .long],
        help: ArgumentHelp("The template (default: standard input).", valueName: "TEMPLATE"))
    var input: String?

    @Option(
        name: [.customShort("o"), .long],
        help: ArgumentHelp("The file to write (default: standard output).", valueName: "FILE"))
    var output: String?

    @Flag(name: [.customShort("f"), .long], help: "Replace an existing file that inject did not write.")
    var force = false

    @OptionGroup var vault: WorkflowVault

    func run() throws {
        let text = try WorkflowFile.text(input, kind: "template", verb: "inject")
        let template: Template
        do { template = try Template.parse(text) } catch {
            throw WorkflowFile.refuse("inject", "\(input ?? "template"): \(error)")
        }
        if let output, !force, !RenderedFile.mayReplace(output) {
            throw failWorkflow(
                "inject", RenderedFile.Failure.notOurs(output).description,
                code: ExitCode(Int32(UInt8(truncatingIfNeeded: SecStatus.duplicateItem))))
        }
        var values: [SecretReference: Data] = [:]
        if !template.references.isEmpty {
            let resolver = try vault.resolver()
            for reference in template.references {
                do { values[reference] = try resolver.bytes(reference) } catch {
                    throw failWorkflow("inject", "\(error.description); nothing was written", code: error.exitCode)
                }
            }
        }
        var rendered = template.render { Array(values[$0]!) }
        defer { rendered.withUnsafeMutableBytes { if let base = $0.baseAddress { memset(base, 0, $0.count) } } }
        guard let output else {
            FileHandle.standardOutput.write(Data(rendered))
            return
        }
        do { try RenderedFile.write(rendered, to: output, source: input ?? "-", force: force) } catch {
            throw failWorkflow("inject", error.description, code: ExitCode(1))
        }
    }
}
