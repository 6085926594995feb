import KeychainFSCredentialHelpers
import Foundation

// git-credential-keychainfs <get|store|erase>: git runs it for `credential.helper keychainfs`.
HelperProcess.harden()
let arguments = CommandLine.arguments.dropFirst()
guard let action = arguments.first, !action.isEmpty else {
    HelperProcess.finish(.init(stderr: "usage: git credential-keychainfs <get|store|erase>\n", status: 1))
}
guard let input = HelperProcess.readInput() else {
    HelperProcess.finish(.init(stderr: "git-credential-keychainfs: \(HelperProcess.inputTooLarge)\n", status: 1))
}
HelperProcess.finish(GitCredentialHelper.run(action, input: input))
