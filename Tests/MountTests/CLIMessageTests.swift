import Foundation
import Testing
import KeychainFSTestSupport

/// What the CLI prints when it refuses input: one clear sentence, never a raw Foundation error, and no usage
/// block when the command line itself was right.
@Suite struct CLIMessageTests {
    @Test func aFileThatCannotBeReadIsNamedWithTheSystemsReason() throws {
        let m = try MountedVault()
        let imported = Command.run(
            MountedVault.binary, ["import", "/proc/self/mem"],
            environment: ["KEYCHAIN_VAULT": m.vault, "KEYCHAIN_ACCESS_GROUPS": ""])
        #expect(imported.status != 0)
        #expect(
            imported.stderr == "security: SecKeychainItemImport: cannot read /proc/self/mem: Input/output error\n",
            "\(imported.stderr)")
    }

    @Test func aRefusedTemplateOrEnvFilePrintsItsErrorAlone() throws {
        let directory = TestDirectory.root + "/kcfs-messages-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let template = directory + "/template", envFile = directory + "/env"
        try "password: {{ kc://genp/only-two }}\n".write(toFile: template, atomically: true, encoding: .utf8)
        try "TOKEN=kc://genp/only-two\n".write(toFile: envFile, atomically: true, encoding: .utf8)
        let notUTF8 = directory + "/latin1"
        #expect(FileManager.default.createFile(atPath: notUTF8, contents: Data([0x41, 0xE9, 0x0A])))
        let refused = [
            Command.run(MountedVault.binary, ["inject", "-i", template]),
            Command.run(MountedVault.binary, ["inject", "-i", notUTF8]),
            Command.run(MountedVault.binary, ["run", "--env-file", envFile, "--", "/bin/true"]),
            Command.run(MountedVault.binary, ["run", "--env", "T=kc://genp/only-two", "--", "/bin/true"]),
        ]
        for result in refused {
            #expect(result.status == 64, "\(result.status) \(result.stderr)")
            #expect(
                result.stderr.hasPrefix("keychainfs ") && !result.stderr.contains("Usage:")
                    && result.stderr.split(separator: "\n").count == 1, "one line, no usage block: \(result.stderr)")
        }
    }
}
