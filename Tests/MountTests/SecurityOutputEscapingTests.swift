import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// The `security` verbs print every outside string (secrets, attributes, certificate names)
/// as macOS's security tool does: `0xHEX  "octal-escaped"` when a byte is not printable ASCII, so nothing
/// printed can move the terminal's cursor, colour it, or start a line of its own.
@Suite struct SecurityOutputEscapingTests {
    let root = TestDirectory.root + "/kcfs-escape-" + UUID().uuidString.prefix(8)
    var vault: String { root + "/vault" }

    func security(_ arguments: [String]) -> CommandResult {
        Command.run(
            MountedVault.binary, arguments, environment: ["KEYCHAIN_VAULT": vault, "KEYCHAIN_ACCESS_GROUPS": ""])
    }

    @Test func passwordsPrintAsMacOSPrintsThem() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try expectSuccess(security(["add-generic-password", "-s", "bin", "-a", "a", "-X", "00ff410a"]))
        #expect(
            security(["find-generic-password", "-s", "bin", "-g"]).stderr
                == "password: 0x00FF410A  \"\\000\\377A\\012\"\n")
        try expectSuccess(security(["add-generic-password", "-s", "quote", "-a", "a", "-w", "a\"b\\c"]))
        #expect(
            security(["find-generic-password", "-s", "quote", "-g"]).stderr
                == "password: 0x6122625C63  \"a\\042b\\134c\"\n")
        try expectSuccess(security(["add-generic-password", "-s", "plain", "-a", "a", "-w", "s3cret pw"]))
        #expect(security(["find-generic-password", "-s", "plain", "-g"]).stderr == "password: \"s3cret pw\"\n")
    }

    @Test func attributesCannotWriteToTheTerminal() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let hostile = "x\u{1B}[2J\nkeychain: \"fake\""
        try expectSuccess(
            security(["add-generic-password", "-s", "svc", "-a", hostile, "-l", hostile, "-j", "caf\u{E9}", "-w", "pw"])
        )
        for output in [security(["find-generic-password", "-s", "svc"]).stdout, security(["dump-keychain"]).stdout] {
            #expect(!output.contains("\u{1B}") && !output.contains("\nkeychain: \"fake\""))
            #expect(
                output.contains(
                    "\"acct\"<blob>=0x781B5B324A0A6B6579636861696E3A202266616B6522  \"x\\033[2J\\012keychain: \\042fake\\042\""
                ))
            #expect(output.contains("\"icmt\"<blob>=0x636166C3A9  \"caf\\303\\251\""))
        }
    }

    @Test func certificateNamesCannotWriteToTheTerminal() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let certificate = try TestCertificate(commonName: "Evil\u{1B}[31m\n  2) 0000 \"Fake\"")
        do {  // closed before the CLI opens the vault
            let connection = try KeychainConnection(
                vault: Vault(directory: vault), caller: Caller(), createIfMissing: true)
            _ = try connection.add(["class": "cert", "v_Data": .data(certificate.der)])
            _ = try connection.add([
                "class": "keys", "kcls": 1, "atag": "evil", "v_Data": .data(certificate.privateKeyX963),
            ])
        }
        let identities = security(["find-identity"])
        #expect(
            identities.succeeded && !identities.stdout.contains("\u{1B}") && !identities.stdout.contains("\n  2) "),
            "\(identities.stdout)")
        #expect(identities.stdout.contains("\"Evil\\033[31m\\012  2) 0000 \\042Fake\\042\""), "\(identities.stdout)")
        let certificates = security(["find-certificate", "-a"])
        #expect(certificates.succeeded && !certificates.stdout.contains("\u{1B}"))
    }
}
