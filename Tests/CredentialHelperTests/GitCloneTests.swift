import Foundation
import Testing
import KeychainFSTestSupport

/// `git clone` over HTTP with basic authentication, the password from the helper: a
/// git-http-backend behind a small server on 127.0.0.1 that the test starts and always stops.
@Suite struct GitCloneTests {
    @Test func cloneWithThePasswordFromTheHelperAndEraseARejectedOne() throws {
        let s = try HelperSandbox()
        let projects = s.root + "/srv"
        try expectSuccess(s.git(["init", "-q", projects + "/work"]))
        try Data("hello from the server\n".utf8).write(to: URL(fileURLWithPath: projects + "/work/README"))
        try expectSuccess(s.git(["add", "README"], directory: projects + "/work"))
        try expectSuccess(s.git(["commit", "-q", "-m", "first"], directory: projects + "/work"))
        try expectSuccess(s.git(["clone", "-q", "--bare", projects + "/work", projects + "/repo.git"]))

        let server = try GitHTTPServer(projectRoot: projects, credential: "alice:s3cret")
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/repo.git"

        let unauthenticated = s.git(["clone", "-q", url, s.root + "/nothing"])
        #expect(
            !unauthenticated.succeeded && unauthenticated.stderr.contains("terminal prompts disabled"),
            "the server wants a password and nothing is stored yet")

        try s.tell("approve", "http://alice@127.0.0.1:\(server.port)", password: "s3cret")
        let cloned = s.git(["clone", "-q", url, s.root + "/clone"])
        #expect(cloned.succeeded, "\(cloned.stderr)")
        #expect(try String(contentsOfFile: s.root + "/clone/README", encoding: .utf8) == "hello from the server\n")
        #expect(!cloned.stderr.contains("s3cret"))

        try s.tell("approve", "http://alice@127.0.0.1:\(server.port)", password: "wrong")
        let rejected = s.git(["clone", "-q", url, s.root + "/again"])
        #expect(!rejected.succeeded && rejected.stderr.contains("Authentication failed"))
        #expect(
            s.keychainfs(["find-internet-password", "-s", "127.0.0.1", "-P", "\(server.port)"]).status == 44,
            "git rejected the wrong password: the helper erased the item")
    }
}
