import KeychainFSCredentialHelpers
import Foundation

// docker-credential-keychainfs <store|get|erase|list|version>: Docker runs it for `"credsStore": "keychainfs"`.
HelperProcess.harden()
let arguments = Array(CommandLine.arguments.dropFirst())
let readsInput = ["store", "get", "erase"].contains(arguments.first ?? "")
guard let input = readsInput ? HelperProcess.readInput() : Data() else {
    // Errors go to standard output, where Docker reads them.
    HelperProcess.finish(
        .init(stdout: Data("docker-credential-keychainfs: \(HelperProcess.inputTooLarge)\n".utf8), status: 1))
}
HelperProcess.finish(DockerCredentialHelper.run(arguments, input: input))
