import Foundation
import Testing
import TestSupport

/// `git clone` over HTTP with basic authentication, the password from the helper (issue 17): a
/// git-http-backend behind a small server on 127.0.0.1 that the test starts and always stops.
@Suite struct GitCloneTests {
    /// The server, its repository and the sandbox's git; `stop()` (also at deinit) kills the server.
    final class Server {
        let process = Process()
        let port: Int

        init(projectRoot: String, credential: String) throws {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("git-http-server.py").path
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [script, projectRoot]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            input.fileHandleForWriting.write(Data((credential + "\n").utf8))  // on stdin: never in argv or the environment
            try input.fileHandleForWriting.close()
            // The first line is the port; wait for it with a deadline.
            let line = LineReader(output.fileHandleForReading)
            guard let text = line.next(timeout: 20), let port = Int(text) else {
                process.terminate()
                throw ServerDidNotStart()
            }
            self.port = port
        }

        func stop() {
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        deinit { stop() }
    }

    struct ServerDidNotStart: Error {}

    /// Reads one line from a pipe on a background thread, so the wait can have a deadline.
    final class LineReader: @unchecked Sendable {
        private var line: String?
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                var bytes = Data()
                while let byte = try? handle.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { bytes += byte }
                line = String(decoding: bytes, as: UTF8.self)
                done.signal()
            }
        }

        func next(timeout: TimeInterval) -> String? {
            done.wait(timeout: .now() + timeout) == .timedOut ? nil : line
        }
    }

    @Test func cloneWithThePasswordFromTheHelperAndEraseARejectedOne() throws {
        let s = try HelperSandbox()
        let projects = s.root + "/srv"
        try expectSuccess(s.git(["init", "-q", projects + "/work"]))
        try Data("hello from the server\n".utf8).write(to: URL(fileURLWithPath: projects + "/work/README"))
        try expectSuccess(s.git(["add", "README"], directory: projects + "/work"))
        try expectSuccess(s.git(["commit", "-q", "-m", "first"], directory: projects + "/work"))
        try expectSuccess(s.git(["clone", "-q", "--bare", projects + "/work", projects + "/repo.git"]))

        let server = try Server(projectRoot: projects, credential: "alice:s3cret")
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/repo.git"

        let unauthenticated = s.git(["clone", "-q", url, s.root + "/nothing"])
        #expect(!unauthenticated.succeeded && unauthenticated.stderr.contains("terminal prompts disabled"),
                "the server wants a password and nothing is stored yet")

        try s.tell("approve", "http://alice@127.0.0.1:\(server.port)", password: "s3cret")
        let cloned = s.git(["clone", "-q", url, s.root + "/clone"])
        #expect(cloned.succeeded, "\(cloned.stderr)")
        #expect(try String(contentsOfFile: s.root + "/clone/README", encoding: .utf8) == "hello from the server\n")
        #expect(!cloned.stderr.contains("s3cret"))

        try s.tell("approve", "http://alice@127.0.0.1:\(server.port)", password: "wrong")
        let rejected = s.git(["clone", "-q", url, s.root + "/again"])
        #expect(!rejected.succeeded && rejected.stderr.contains("Authentication failed"))
        #expect(s.keychainfs(["find-internet-password", "-s", "127.0.0.1", "-P", "\(server.port)"]).status == 44,
                "git rejected the wrong password: the helper erased the item")
    }
}
