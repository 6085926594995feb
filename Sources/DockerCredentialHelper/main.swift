import CredentialHelpers
import Foundation

// docker-credential-keychainfs <store|get|erase|list|version>: Docker runs it for `"credsStore": "keychainfs"`.
HelperProcess.harden()
let arguments = Array(CommandLine.arguments.dropFirst())
let readsInput = ["store", "get", "erase"].contains(arguments.first ?? "")
HelperProcess.finish(DockerCredentialHelper.run(arguments, input: readsInput ? HelperProcess.readInput() : Data()))
