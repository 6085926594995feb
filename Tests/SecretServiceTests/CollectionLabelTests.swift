import Foundation
import Testing
import KeychainFSTestSupport

/// The collection's `Label` is READWRITE (org.freedesktop.Secret 0.2): Python's `secretstorage` sets it,
/// the same value again included, reads it back, and the vault keeps it across a restart of its daemon;
/// the change is signalled; it is not an item of the collection; a locked device keeps it from changing.
@Suite struct CollectionLabelTests {
    @Test func aClientSetsTheLabelAndTheVaultKeepsIt() throws {
        let s = try ServedVault()
        let watcher = try RunningClient("watch_signals", ["30"], on: s.bus)
        defer { watcher.kill() }
        #expect(watcher.lines.waitFor(10) { $0 == "ready" } != nil)

        let set = s.python("secretstorage_client", ["dh", "label", "Work keys"])
        #expect(set.stdout == "Login\nWork keys\n", "\(set)")
        #expect(
            watcher.lines.waitFor(10) {
                $0.hasPrefix("PropertiesChanged /org/freedesktop/secrets/collection/login ")
                    && $0.contains("'Label': ('s', 'Work keys')")
            } != nil, "\(watcher.lines.all)")
        #expect(watcher.lines.waitFor(10) { $0.hasPrefix("CollectionChanged") } != nil)
        #expect(
            !s.secretTool(["search", "--all", "service", "org.freedesktop.Secret.Collection"]).stdout.contains(
                "secret"),
            "the label is not an item of the collection")
        // A client naming the label's own service and username makes an item of its own beside it.
        try expectSuccess(
            s.secretTool(
                ["store", "--label=x", "service", "org.freedesktop.Secret.Collection", "username", "login"],
                stdin: "mine"))
        #expect(s.python("secretstorage_client", ["dh", "label"]).stdout == "Work keys\n")

        s.vault.unmount()
        try expectSuccess(s.vault.remount(["--secret-service"], environment: s.bus.environment))
        #expect(s.python("secretstorage_client", ["dh", "label"]).stdout == "Work keys\n", "kept in the vault")
        #expect(
            s.secretTool(["lookup", "service", "org.freedesktop.Secret.Collection", "username", "login"]).stdout
                == "mine")

        // Locked: the label shown is the last one read; setting it is IsLocked (secretstorage checks first).
        try expectSuccess(s.vault.device("passcode", "set", passcode: "1234"))
        try expectSuccess(s.vault.device("lock"))
        #expect(s.python("secretstorage_client", ["dh", "label"]).stdout == "Work keys\n")
        let refused = s.python("secretstorage_client", ["dh", "label", "Other"])
        #expect(!refused.succeeded && refused.stderr.contains("Locked"), "\(refused)")
        try expectSuccess(s.vault.device("unlock", passcode: "1234"))
        #expect(s.python("secretstorage_client", ["dh", "label"]).stdout == "Work keys\n")
    }
}
