import Foundation
import Testing
import KeychainFSTestSupport

/// The clients Debian ships, against a vault served with --secret-service: each stores, finds and deletes
/// its own items and reads what the others and the mount wrote (one vault, two faces).
@Suite struct ClientInteropTests {
    @Test func secretToolStoresLooksUpSearchesAndClearsThroughTheVault() throws {
        let s = try ServedVault()
        try expectSuccess(
            s.secretTool(["store", "--label=tool label", "service", "svc", "username", "alice"], stdin: "tool-secret"))
        #expect(s.secretTool(["lookup", "service", "svc", "username", "alice"]).stdout == "tool-secret")
        #expect(
            MountFiles.text(s.vault.path("genp/svc/alice/value")) == "tool-secret",
            "service/username are the item's service and account")

        // An item made through the mount is found by its service and username, with its label.
        #expect(MountFiles.makeItem(s, service: "mounted", account: "bob", value: "mount-secret"))
        #expect(s.secretTool(["lookup", "service", "mounted", "username", "bob"]).stdout == "mount-secret")
        // And one made with the CLI (through the daemon), with its label.
        let added = Command.run(
            MountedVault.binary,
            ["add-generic-password", "-s", "cli-svc", "-a", "gina", "-l", "CLI label", "-w", "cli-secret"],
            environment: ["KEYCHAIN_VAULT": s.vault.vault])
        try expectSuccess(added)
        let cliItem = s.secretTool(["search", "service", "cli-svc", "username", "gina"])
        #expect(
            cliItem.stdout.contains("label = CLI label") && cliItem.stdout.contains("secret = cli-secret"), "\(cliItem)"
        )
        let search = s.secretTool(["search", "--all", "service", "svc"])
        #expect(
            search.stdout.contains("label = tool label") && search.stdout.contains("secret = tool-secret"), "\(search)")
        #expect(search.stderr.contains("attribute.username = alice"), "secret-tool prints attributes on standard error")

        // Other attribute sets: kept whole, found by any subset.
        try expectSuccess(
            s.secretTool(
                ["store", "--label=other", "app", "demo", "kind", "token", "env", "ci"], stdin: "other-secret"))
        #expect(s.secretTool(["lookup", "kind", "token"]).stdout == "other-secret")
        #expect(s.secretTool(["lookup", "env", "ci", "app", "demo"]).stdout == "other-secret")
        #expect(!s.secretTool(["lookup", "env", "prod"]).succeeded)

        try expectSuccess(s.secretTool(["clear", "service", "svc", "username", "alice"]))
        #expect(!s.secretTool(["lookup", "service", "svc", "username", "alice"]).succeeded)
        #expect(!MountFiles.exists(s.vault.path("genp/svc/alice/value")), "cleared from the vault, not only hidden")
        #expect(
            MountFiles.text(s.vault.path("genp/mounted/bob/value")) == "mount-secret", "clear removes only what matches"
        )
    }

    @Test(arguments: ["dh", "plain"])
    func secretstorageWithEachSessionAlgorithm(_ algorithm: String) throws {
        let s = try ServedVault()
        let result = s.python("secretstorage_client", [algorithm, "roundtrip"])
        #expect(result.stdout == "OK\n", "\(result)")
        try expectSuccess(
            s.python(
                "secretstorage_client", [algorithm, "store", "py", "py-secret", "service=pysvc", "username=carol"]))
        #expect(MountFiles.text(s.vault.path("genp/pysvc/carol/value")) == "py-secret")
        #expect(s.secretTool(["lookup", "service", "pysvc", "username", "carol"]).stdout == "py-secret")
    }

    @Test func keyringAndDockerHelperReadWhatTheOthersWrote() throws {
        let s = try ServedVault()
        try expectSuccess(s.python("keyring_client", ["set", "kr-svc", "dave", "keyring-secret"]))
        #expect(s.python("keyring_client", ["get", "kr-svc", "dave"]).stdout == "keyring-secret")
        #expect(
            MountFiles.text(s.vault.path("genp/kr-svc/dave/value")) == "keyring-secret",
            "keyring.get_password and cat read one secret")
        #expect(s.secretTool(["lookup", "service", "kr-svc", "username", "dave"]).stdout == "keyring-secret")
        try expectSuccess(
            s.secretTool(["store", "--label=x", "service", "tool-svc", "username", "erin"], stdin: "from-tool"))
        #expect(s.python("keyring_client", ["get", "tool-svc", "erin"]).stdout == "from-tool")
        #expect(MountFiles.makeItem(s, service: "fs-svc", account: "frank", value: "from-mount"))
        #expect(s.python("keyring_client", ["get", "fs-svc", "frank"]).stdout == "from-mount")
        // The Security module (SecItemAdd / SecItemCopyMatching in a process of its own) and keyring, both ways.
        let probe = MountedVault.builtProgram("security-probe")
        let vault = ["KEYCHAIN_VAULT": s.vault.vault]
        #expect(
            Command.run(probe, ["save", "sec-svc", "hal", "from-security", "ak"], environment: vault).stdout
                == "saved\n")
        #expect(s.python("keyring_client", ["get", "sec-svc", "hal"]).stdout == "from-security")
        #expect(Command.run(probe, ["load", "kr-svc", "dave"], environment: vault).stdout == "value keyring-secret\n")
        try expectSuccess(s.python("keyring_client", ["delete", "kr-svc", "dave"]))
        #expect(s.python("keyring_client", ["get", "kr-svc", "dave"]).status == 2)
        #expect(!MountFiles.exists(s.vault.path("genp/kr-svc/dave/value")))

        let credentials = #"{"ServerURL":"https://registry.example","Username":"ci-bot","Secret":"docker-secret"}"#
        try expectSuccess(s.docker("store", stdin: credentials))
        #expect(s.docker("get", stdin: "https://registry.example").stdout.contains(#""Secret":"docker-secret""#))
        #expect(s.docker("list", stdin: "").stdout.contains(#""https://registry.example":"ci-bot""#))
        #expect(
            s.secretTool(["lookup", "server", "https://registry.example"]).stdout == "docker-secret",
            "secret-tool reads Docker's item")
        try expectSuccess(s.docker("erase", stdin: "https://registry.example"))
        #expect(!s.docker("get", stdin: "https://registry.example").succeeded)
        #expect(
            s.python("keyring_client", ["get", "tool-svc", "erin"]).stdout == "from-tool",
            "erase removes only Docker's item")
    }
}
