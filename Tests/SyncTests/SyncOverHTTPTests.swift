import Foundation
import Testing
import KeychainFSTestSupport

/// Sync through `git http-backend` on 127.0.0.1: a real remote, not a path.
@Suite("sync over HTTP", .serialized)
struct SyncOverHTTPTests {
    @Test(
        "found, join, admit and sync over HTTP; when the server stops answering, sync fails at its deadline and changes nothing"
    )
    func syncOverHTTP() throws {
        let group = try SyncGroup()
        let server = try GitHTTPServer(projectRoot: group.root, credential: "")
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/remote.git"
        try expectSuccess(Command.run("/usr/bin/git", ["-C", group.remote, "config", "http.receivepack", "true"]))
        let a = try group.makeVault("a"), b = try group.makeVault("b")
        try group.add(a, service: "svc-http", account: "acct", secret: "secret-http", label: "label-http")
        try expectSuccess(group.cli(["sync", "init", url, "--vault", a, "--name", "a"]))
        let invite = group.cli(["sync", "invite", "--vault", a])
        try expectSuccess(invite)
        try expectSuccess(
            group.cli(["sync", "join", url, "--vault", b, "--code-stdin", "--name", "b"], stdin: invite.stdout))
        for vault in [a, b] { try group.sync(vault) }
        #expect(try group.secret(b, service: "svc-http", account: "acct") == "secret-http")

        try group.add(b, service: "svc-late", account: "acct", secret: "secret-late", label: "label-late")
        server.pause()
        let started = Date()
        let stalled = group.cli(["sync", "--vault", b])
        let took = Date().timeIntervalSince(started)
        #expect(stalled.status != 0 && stalled.stderr.contains("did not finish within"), "\(stalled.stderr)")
        #expect(took < 110, "the deadline holds: \(took) s")
        server.stop()
        #expect(try group.secret(a, service: "svc-late", account: "acct") == nil)
        #expect(try group.secret(b, service: "svc-late", account: "acct") == "secret-late", "nothing lost in the vault")
    }
}
