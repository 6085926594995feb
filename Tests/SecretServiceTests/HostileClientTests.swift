import Foundation
import Testing
import KeychainFSTestSupport

/// Hostile clients get clear D-Bus errors, memory stays bounded, and nothing stored is lost or changed.
@Suite struct HostileClientTests {
    func hostile(_ s: ServedVault, _ arguments: String...) -> [String] {
        let result = s.python("hostile_client", arguments)
        #expect(result.succeeded, "\(result)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func hugeAttributeMapsAndOversizeSecretsAreRefusedAndNothingChanges() throws {
        let s = try ServedVault()
        try expectSuccess(
            s.secretTool(["store", "--label=keep", "service", "hostile", "username", "oversize"], stdin: "kept"))
        #expect(
            hostile(s, "huge-attributes") == [
                "org.freedesktop.DBus.Error.InvalidArgs", "org.freedesktop.DBus.Error.InvalidArgs",
            ])
        #expect(
            hostile(s, "oversize-secret") == ["org.freedesktop.DBus.Error.InvalidArgs"],
            "a secret over 1 MiB is refused by the engine's bound")
        #expect(
            s.secretTool(["lookup", "service", "hostile", "username", "oversize"]).stdout == "kept",
            "the item it would have replaced is unchanged")
        #expect(MountFiles.text(s.vault.path("genp/hostile/long/value")) == nil)
    }

    @Test func malformedCallsGetTheSpecsErrors() throws {
        let s = try ServedVault()
        #expect(
            hostile(s, "malformed") == [
                "org.freedesktop.DBus.Error.InvalidArgs",  // OpenSession(ss)
                "org.freedesktop.DBus.Error.InvalidArgs",  // a DH public value of 500 bytes
                "org.freedesktop.DBus.Error.InvalidArgs",  // the DH value 1 (a small subgroup)
                "org.freedesktop.DBus.Error.InvalidArgs",  // GetSecrets without its session argument
                "org.freedesktop.Secret.Error.NoSession",  // GetSecrets with a session that does not exist
                "org.freedesktop.Secret.Error.NoSuchObject",  // an item path that is no item
                "org.freedesktop.DBus.Error.UnknownMethod",
            ])
        #expect(
            s.secretTool(["store", "--label=after", "service", "still", "username", "works"], stdin: "fine").succeeded)
    }

    @Test func aClientMayKeepOnlySoManySessions() throws {
        let s = try ServedVault()
        #expect(hostile(s, "sessions", "2000") == ["opened 64 refused org.freedesktop.DBus.Error.Failed"])
        // The cap is per client: the next one opens its own.
        #expect(hostile(s, "sessions", "10") == ["opened 10 refused none"])
    }

    @Test func aClientThatVanishesMidPromptLeavesNoPromptBehind() throws {
        let s = try ServedVault()
        try expectSuccess(s.vault.device("passcode", "set", passcode: "1234"))
        try expectSuccess(s.vault.device("prompt", "auto", "off"))
        try expectSuccess(s.vault.device("lock"))
        let client = try RunningClient("hostile_client", ["prompt-and-vanish"], on: s.bus)
        #expect(client.lines.waitFor(10) { $0 == "ok" } != nil, "Prompt.Prompt answered")
        let pending = { s.vault.cli(["device", "prompts", "--mount", s.vault.mount]).stdout }
        #expect(
            s.vault.wait(10) { pending().contains("Secret Service") },
            "the unlock prompt waits for an answer: \(pending())")
        client.kill()
        #expect(
            s.vault.wait(10) { !pending().contains("Secret Service") },
            "the vanished client's prompt is cancelled: \(pending())")
        #expect(s.python("secretstorage_client", ["dh", "locked"]).stdout == "True\n", "and nothing was unlocked")
    }
}
