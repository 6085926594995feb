import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// `device prompts` prints what callers chose (their executable's path,
/// the item's name, a prompt's reason) escaped, so a caller cannot write to the operator's terminal.
@Suite struct PromptListEscapingTests {
    @Test func aHostileExecutableNameCannotWriteToTheTerminal() throws {
        let m = try MountedVault()
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("biometry", "enroll"))
        do {  // closed before the daemon serves the reads
            let connection = try KeychainConnection(vault: Vault(directory: m.vault), caller: Caller())
            _ = try connection.add([
                "class": "genp", "svce": "face", "acct": "token", "v_Data": .data(Data("s3cret".utf8)),
                "accc": .number(1 << 1),
            ])
        }
        try expectSuccess(m.device("prompt", "auto", "off"))
        let hostile = m.root + "/cat\u{1B}[2J\nfake line"
        try FileManager.default.copyItem(atPath: "/bin/cat", toPath: hostile)
        let cat = Process()
        cat.executableURL = URL(fileURLWithPath: hostile)
        cat.arguments = [m.path("genp/face/token/value")]
        cat.standardOutput = FileHandle.nullDevice
        cat.standardError = FileHandle.nullDevice
        try cat.run()
        defer {
            m.device("prompt", "cancel")
            cat.terminate()
            cat.waitUntilExit()
        }
        let prompts = { m.cli(["device", "prompts", "--mount", m.mount]).stdout }
        #expect(m.wait(10) { prompts().contains("fake line") }, "the open waits for its prompt")
        let listed = prompts()
        #expect(!listed.contains("\u{1B}") && listed.split(separator: "\n").count == 1, "\(listed.debugDescription)")
        #expect(listed.contains("cat\\u{1B}[2J\\u{A}fake line"), "\(listed.debugDescription)")
    }
}
