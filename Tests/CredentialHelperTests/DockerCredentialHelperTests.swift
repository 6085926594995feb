import Foundation
import Testing
import KeychainFSTestSupport

/// Docker's credential-helper protocol as the docker CLI speaks it (docs/credential-helpers.md): JSON on stdin for
/// `store`, a server URL for `get` and `erase`, errors on stdout with exit 1.
@Suite struct DockerCredentialHelperTests {
    func docker(_ s: HelperSandbox, _ action: String, _ input: String = "") -> CommandResult {
        s.helper("docker-credential-keychainfs", [action], stdin: input)
    }

    func store(_ s: HelperSandbox, _ url: String, _ username: String, _ secret: String) throws {
        let stored = docker(
            s, "store", #"{"ServerURL":"\#(url)","Username":"\#(username)","Secret":"\#(secret)"}"# + "\n")
        #expect(stored.succeeded && stored.stdout.isEmpty, "\(stored.stdout)")
    }

    @Test func storeGetListEraseAsTheDockerCLISendsThem() throws {
        let s = try HelperSandbox()
        try store(s, "https://index.docker.io/v1/", "alice", "s3cret")
        let got = docker(s, "get", "https://index.docker.io/v1/\n")
        #expect(
            got.succeeded
                && got.stdout == #"{"ServerURL":"https://index.docker.io/v1/","Username":"alice","Secret":"s3cret"}"#
                    + "\n"
        )
        try store(s, "https://index.docker.io/v1/", "alice", "rotated")
        #expect(
            docker(s, "get", "https://index.docker.io/v1/").stdout.contains(#""Secret":"rotated""#), "store replaces")
        #expect(docker(s, "list").stdout == #"{"https://index.docker.io/v1/":"alice"}"# + "\n")
        let erased = docker(s, "erase", "https://index.docker.io/v1/\n")
        #expect(erased.succeeded && erased.stdout.isEmpty)
        let gone = docker(s, "get", "https://index.docker.io/v1/\n")
        #expect(
            gone.status == 1 && gone.stdout == "credentials not found in native keychain\n",
            "exactly what Docker recognises")
        let again = docker(s, "erase", "https://index.docker.io/v1/")
        #expect(again.status == 1 && again.stdout == "credentials not found in native keychain\n")
        #expect(docker(s, "list").stdout == "{}\n")
    }

    @Test func urlFormsWithAndWithoutSchemePortAndPath() throws {
        let s = try HelperSandbox()
        try store(s, "registry.example.com:5000", "bob", "b")
        try store(s, "http://localhost:5000/v2/", "carol", "c")
        try store(s, "https://ghcr.io", "dave", "d")
        try store(s, "quay.io/org", "erin", "e")
        #expect(docker(s, "get", "registry.example.com:5000").stdout.contains(#""Username":"bob","Secret":"b""#))
        #expect(
            docker(s, "get", "https://registry.example.com:5000").stdout.contains(#""Secret":"b""#),
            "no scheme is HTTPS")
        #expect(docker(s, "get", "http://registry.example.com:5000").status == 1, "http is another protocol")
        #expect(
            docker(s, "get", "https://registry.example.com:5001").stdout == "credentials not found in native keychain\n"
        )
        #expect(docker(s, "get", "http://localhost:5000/v2/").stdout.contains(#""Secret":"c""#))
        #expect(docker(s, "get", "https://localhost:5000/v2/").status == 1)
        #expect(
            docker(s, "get", "ghcr.io").stdout == #"{"ServerURL":"ghcr.io","Username":"dave","Secret":"d"}"# + "\n",
            "the URL is echoed as given")
        #expect(docker(s, "get", "https://quay.io/org").stdout.contains(#""Secret":"e""#))
        #expect(docker(s, "get", "https://quay.io/other").status == 1, "the path is part of the item")
        #expect(
            docker(s, "list").stdout
                == #"{"http://localhost:5000/v2/":"carol","https://ghcr.io":"dave","https://quay.io/org":"erin","#
                + #""https://registry.example.com:5000":"bob"}"# + "\n")
    }

    @Test func identityTokensAndGoStyleJSON() throws {
        let s = try HelperSandbox()
        // What the docker CLI sends for an identity token: the username "<token>".
        let stored = docker(
            s, "store", #"{"ServerURL":"registry.example.com","Username":"\u003ctoken\u003e","Secret":"tok&en"}"#)
        #expect(stored.succeeded)
        #expect(
            docker(s, "get", "registry.example.com").stdout
                == #"{"ServerURL":"registry.example.com","Username":"\u003ctoken\u003e","Secret":"tok\u0026en"}"# + "\n"
        )
        let lowercase = docker(s, "store", #"{"serverurl":"other.example","username":"u","secret":"p"}"#)
        #expect(lowercase.succeeded, "Go matches JSON field names case-insensitively")
        #expect(docker(s, "get", "other.example").stdout.contains(#""Username":"u","Secret":"p""#))
    }

    @Test func badInputIsAnErrorOnStdoutAndStoresNothing() throws {
        let s = try HelperSandbox()
        #expect(docker(s, "store", #"{"ServerURL":"x.example","Secret":"p"}"#).stdout == "no credentials username\n")
        #expect(docker(s, "store", #"{"Username":"u","Secret":"p"}"#).stdout == "no credentials server URL\n")
        #expect(docker(s, "get", "\n").stdout == "no credentials server URL\n")
        let scheme = docker(s, "store", #"{"ServerURL":"ftp://x.example","Username":"u","Secret":"p"}"#)
        #expect(scheme.status == 1 && scheme.stdout == "unsupported scheme: ftp\n")
        #expect(docker(s, "get", "https:///v2/").stdout == "no hostname in URL\n")
        let notJSON = docker(s, "store", "ServerURL=x")
        #expect(notJSON.status == 1 && !notJSON.stdout.isEmpty)
        let number = docker(s, "store", #"{"ServerURL":1,"Username":"u","Secret":"p"}"#)
        #expect(number.status == 1 && number.stdout.contains("cannot unmarshal number"))
        #expect(docker(s, "list").stdout == "{}\n", "nothing was stored")
        #expect(docker(s, "version").stdout.hasPrefix("docker-credential-keychainfs "))
        let unknown = docker(s, "frobnicate")
        #expect(unknown.status == 1 && unknown.stdout.contains("unknown action"))
        #expect(s.helper("docker-credential-keychainfs", [], stdin: "").stdout.hasPrefix("Usage:"))
    }

    @Test func aLockedDeviceSaysWhyOnStderr() throws {
        let m = try MountedVault()
        defer { m.close() }
        let s = try HelperSandbox(vault: m.vault)
        try store(s, "registry.example.com", "alice", "s3cret")
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        let locked = docker(s, "get", "registry.example.com")
        #expect(locked.status == 1 && locked.stdout.isEmpty && locked.stderr.contains("locked"))
        let storeLocked = docker(s, "store", #"{"ServerURL":"registry.example.com","Username":"alice","Secret":"new"}"#)
        #expect(storeLocked.status == 1 && storeLocked.stderr.contains("locked"))
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(
            docker(s, "get", "registry.example.com").stdout.contains(#""Secret":"s3cret""#),
            "a store refused while locked deleted nothing")
    }

    /// A store the keychain refuses (a secret over the 1 MiB value limit) leaves the stored
    /// login as it was; a store that succeeds replaces it in one update, whatever the username.
    @Test func aRefusedStoreKeepsTheStoredLogin() throws {
        let s = try HelperSandbox()
        try store(s, "https://registry.example.com", "alice", "s3cret")
        let oversized = String(repeating: "x", count: (1 << 20) + 1)
        for username in ["alice", "mallory"] {
            let refused = docker(
                s, "store",
                #"{"ServerURL":"https://registry.example.com","Username":"\#(username)","Secret":"\#(oversized)"}"#)
            #expect(refused.status == 1 && refused.stdout.contains("1 MiB"), "\(refused.stdout.prefix(200))")
            #expect(
                docker(s, "get", "https://registry.example.com").stdout.contains(
                    #""Username":"alice","Secret":"s3cret""#), "the old login is kept")
        }
        try store(s, "https://registry.example.com", "bob", "b0b")
        #expect(docker(s, "get", "https://registry.example.com").stdout.contains(#""Username":"bob","Secret":"b0b""#))
        #expect(
            docker(s, "list").stdout == #"{"https://registry.example.com":"bob"}"# + "\n",
            "one login per server, as osxkeychain keeps")
        // A URL without a port replaces the logins of every port, as osxkeychain's delete-then-add did.
        try store(s, "other.example.com:5000", "carol", "c")
        try store(s, "other.example.com", "dave", "d")
        #expect(
            docker(s, "get", "other.example.com:5000").status == 1, "the :5000 login was replaced by the port-less one")
        #expect(docker(s, "get", "other.example.com").stdout.contains(#""Username":"dave","Secret":"d""#))
    }

    /// The helpers read at most 8 MiB of standard input and say so beyond it.
    @Test func anOversizedInputIsRefused() throws {
        let s = try HelperSandbox()
        let huge = String(repeating: "x", count: (8 << 20) + 1)
        let docker = docker(s, "store", huge)
        #expect(
            docker.status == 1 && docker.stdout == "docker-credential-keychainfs: the input is larger than 8 MiB\n",
            "\(docker.stdout.prefix(200))")
        let git = s.helper(
            "git-credential-keychainfs", ["store"],
            stdin: "protocol=https\nhost=example.com\nusername=a\npassword=" + huge)
        #expect(
            git.status == 1 && git.stderr == "git-credential-keychainfs: the input is larger than 8 MiB\n",
            "\(git.stderr.prefix(200))")
    }
}
