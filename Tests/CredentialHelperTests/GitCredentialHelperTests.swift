import Foundation
import Testing
import KeychainFSTestSupport

/// Debian's git drives `git-credential-keychainfs` (docs/credential-helpers.md): `credential.helper keychainfs` in a
/// throwaway HOME, `git credential fill / approve / reject`, against an in-process vault.
@Suite struct GitCredentialHelperTests {
    @Test func storeThenGet() throws {
        let s = try HelperSandbox()
        #expect(
            s.fill("https://example.com") == nil, "nothing stored yet: the helper says nothing and git cannot prompt")
        #expect(!FileManager.default.fileExists(atPath: s.vault), "get never creates a vault")
        try s.tell("approve", "https://alice@example.com", password: "s3cret")
        let answer = s.fill("https://example.com")
        #expect(
            answer?["username"] == "alice" && answer?["password"] == "s3cret",
            "no username given: the item's account comes back")
        #expect(s.fill("https://alice@example.com")?["password"] == "s3cret")
        #expect(s.fill("https://bob@example.com") == nil, "another username is another item")
    }

    @Test func protocolsHostsPortsAndUsernamesAreKeptApart() throws {
        let s = try HelperSandbox()
        let stored = [
            "https://alice@example.com": "p-https", "http://alice@example.com": "p-http",
            "https://alice@example.com:8443": "p-port",
            "https://alice@other.example": "p-host", "https://bob@example.com": "p-bob",
            "ftp://alice@example.com": "p-ftp",
            "imaps://alice@example.com": "p-imaps", "smtp://alice@example.com": "p-smtp",
        ]
        for (url, password) in stored { try s.tell("approve", url, password: password) }
        for (url, password) in stored { #expect(s.fill(url)?["password"] == password, "\(url)") }
        #expect(s.fill("https://alice@example.com:9999") == nil, "an unknown port is not the default port")
        try s.tell("reject", "https://alice@example.com", password: "p-https")
        #expect(
            s.fill("https://alice@example.com") == nil
                && s.fill("https://alice@example.com:8443")?["password"] == "p-port",
            "a URL without port names the default port only")
    }

    @Test func pathsAreKeptApartWithUseHttpPath() throws {
        let s = try HelperSandbox()
        try expectSuccess(s.git(["config", "--global", "credential.useHttpPath", "true"]))
        try s.tell("approve", "https://alice@example.com/team/a.git", password: "pa")
        try s.tell("approve", "https://alice@example.com/team/b.git", password: "pb")
        #expect(s.fill("https://example.com/team/a.git")?["password"] == "pa")
        #expect(s.fill("https://example.com/team/b.git")?["password"] == "pb")
        #expect(s.fill("https://example.com/team/c.git") == nil)
        let item = s.keychainfs(["find-internet-password", "-s", "example.com", "-p", "team/b.git", "-w"])
        #expect(item.stdout == "pb\n", "the path is the item's kSecAttrPath")
    }

    @Test func approveOverwritesAndRejectErasesOnlyAMatchingPassword() throws {
        let s = try HelperSandbox()
        try s.tell("approve", "https://alice@example.com", password: "old")
        try s.tell("approve", "https://alice@example.com", password: "new")
        #expect(s.fill("https://alice@example.com")?["password"] == "new")
        let listed = s.keychainfs(["find-internet-password", "-s", "example.com", "-a", "alice", "-w"])
        #expect(listed.stdout == "new\n", "one item, updated in place")

        try s.tell("reject", "https://alice@example.com", password: "old")
        #expect(
            s.fill("https://alice@example.com")?["password"] == "new", "a reject with another password keeps the item")
        try s.tell("reject", "https://alice@example.com", password: "new")
        #expect(s.fill("https://alice@example.com") == nil, "a reject with the stored password erases it")
        #expect(s.keychainfs(["find-internet-password", "-s", "example.com"]).status == 44)
    }

    @Test func eraseWithoutPasswordErasesEveryMatch() throws {
        let s = try HelperSandbox()
        try s.tell("approve", "https://alice@example.com", password: "a")
        try s.tell("approve", "https://bob@example.com", password: "b")
        try s.tell("approve", "https://carol@example.org", password: "c")
        let erased = s.helper("git-credential-keychainfs", ["erase"], stdin: "protocol=https\nhost=example.com\n\n")
        #expect(erased.succeeded && erased.stdout.isEmpty)
        #expect(s.fill("https://alice@example.com") == nil && s.fill("https://bob@example.com") == nil)
        #expect(s.fill("https://carol@example.org")?["password"] == "c", "another host is untouched")
        let noHost = s.helper("git-credential-keychainfs", ["erase"], stdin: "protocol=https\n\n")
        #expect(noHost.status == 1 && noHost.stderr.contains("needs a protocol and a host"))
        #expect(s.fill("https://carol@example.org")?["password"] == "c")
    }

    @Test func expiryAndRefreshTokenRoundTrip() throws {
        let s = try HelperSandbox()
        let stored = s.helper(
            "git-credential-keychainfs", ["store"],
            stdin: """
                protocol=https\nhost=forge.example:8443\nusername=alice\npassword=pw\npassword_expiry_utc=2000000000
                oauth_refresh_token=refresh-me\nwwwauth[]=Basic realm="x"\n\n
                """)
        #expect(stored.succeeded && stored.stdout.isEmpty && stored.stderr.isEmpty)
        let got = s.helper("git-credential-keychainfs", ["get"], stdin: "protocol=https\nhost=forge.example:8443\n\n")
        #expect(
            got.stdout
                == "password=pw\npassword_expiry_utc=2000000000\noauth_refresh_token=refresh-me\nusername=alice\n")
        let withUser = s.helper(
            "git-credential-keychainfs", ["get"], stdin: "protocol=https\nhost=forge.example:8443\nusername=alice\n")
        #expect(
            withUser.stdout == "password=pw\npassword_expiry_utc=2000000000\noauth_refresh_token=refresh-me\n",
            "given a username, none is printed")
        let wrong = s.helper(
            "git-credential-keychainfs", ["erase"],
            stdin: "protocol=https\nhost=forge.example:8443\nusername=alice\npassword=refresh-me\n")
        #expect(wrong.succeeded)
        #expect(
            s.helper("git-credential-keychainfs", ["get"], stdin: "protocol=https\nhost=forge.example:8443\n").stdout
                .hasPrefix("password=pw\n"))
        let erased = s.helper(
            "git-credential-keychainfs", ["erase"],
            stdin: "protocol=https\nhost=forge.example:8443\nusername=alice\npassword=pw\n")
        #expect(erased.succeeded)
        #expect(
            s.helper("git-credential-keychainfs", ["get"], stdin: "protocol=https\nhost=forge.example:8443\n").stdout
                .isEmpty,
            "the password compared is the one before the appended lines")
    }

    @Test func otherProtocolsIncompleteCredentialsAndBadInputStoreNothing() throws {
        let s = try HelperSandbox()
        let ssh = s.helper(
            "git-credential-keychainfs", ["store"],
            stdin: "protocol=ssh\nhost=example.com\nusername=alice\npassword=pw\n")
        #expect(ssh.succeeded && ssh.stdout.isEmpty && ssh.stderr.isEmpty, "other protocols are ignored, exit 0")
        let incomplete = s.helper(
            "git-credential-keychainfs", ["store"], stdin: "protocol=https\nhost=example.com\npassword=pw\n")
        #expect(incomplete.succeeded && incomplete.stderr.contains("not stored"))
        #expect(s.keychainfs(["find-internet-password", "-s", "example.com"]).status == 44, "neither was stored")
        let bad = s.helper("git-credential-keychainfs", ["store"], stdin: "protocol=https\nhost=example.com\nhunter2\n")
        #expect(
            bad.status == 1 && bad.stderr.contains("line 3 has no '='") && !bad.stderr.contains("hunter2"),
            "the bad line is not echoed")
        let badPort = s.helper("git-credential-keychainfs", ["get"], stdin: "protocol=https\nhost=example.com:http\n")
        #expect(badPort.status == 1 && badPort.stdout.isEmpty && badPort.stderr.contains("port"))
        let unknown = s.helper("git-credential-keychainfs", ["frobnicate"], stdin: "protocol=https\nhost=example.com\n")
        #expect(unknown.succeeded && unknown.stdout.isEmpty, "unknown actions are ignored, as git requires")
        #expect(s.helper("git-credential-keychainfs", [], stdin: "").status == 1)
    }

    @Test func aLockedDeviceMakesFillFallBack() throws {
        let m = try MountedVault()
        defer { m.close() }
        let s = try HelperSandbox(vault: m.vault)
        try s.tell("approve", "https://alice@example.com", password: "s3cret")
        #expect(
            try String(contentsOfFile: m.path("inet/example.com/alice;atyp=dflt;ptcl=htps/value"), encoding: .utf8)
                == "s3cret",
            "the daemon served the store")
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        let locked = s.git(["credential", "fill"], stdin: "url=https://example.com\n\n")
        #expect(
            locked.status == 128 && locked.stdout.isEmpty,
            "git fell back to its prompt, which GIT_TERMINAL_PROMPT=0 refuses")
        #expect(locked.stderr.contains("locked") && locked.stderr.contains("terminal prompts disabled"))
        #expect(!locked.stderr.contains("s3cret"))
        let direct = s.helper("git-credential-keychainfs", ["get"], stdin: "protocol=https\nhost=example.com\n")
        #expect(direct.status == 1 && direct.stdout.isEmpty && direct.stderr.contains("errSecInteractionNotAllowed"))
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(s.fill("https://example.com")?["password"] == "s3cret")
    }

    /// Git's side: a store the keychain refuses (over the 1 MiB value limit) keeps the stored password.
    @Test func aRefusedStoreKeepsTheStoredPassword() throws {
        let s = try HelperSandbox()
        try s.tell("approve", "https://alice@example.com", password: "s3cret")
        let refused = s.helper(
            "git-credential-keychainfs", ["store"],
            stdin:
                "protocol=https\nhost=example.com\nusername=alice\npassword=\(String(repeating: "x", count: (1 << 20) + 1))\n\n"
        )
        #expect(!refused.succeeded || refused.stderr.contains("1 MiB"), "\(refused.stderr.prefix(200))")
        #expect(s.fill("https://alice@example.com")?["password"] == "s3cret")
    }
}
