import Foundation

/// `git http-backend` behind a small Python server on 127.0.0.1 (Tests/CredentialHelperTests/git-http-server.py)
/// that a test starts and always stops: a real remote over HTTP, not a path. `stop()` (also at deinit)
/// kills it; `pause()` stops it answering (SIGSTOP: connections are accepted, nothing is answered).
public final class GitHTTPServer {
    let process = Process()
    /// The port it listens on.
    public let port: Int

    /// Serves the repositories under `projectRoot`; `credential` (`user:password`, given on standard input,
    /// never in argv or the environment) is required by every request, or nothing when empty.
    public init(projectRoot: String, credential: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("CredentialHelperTests/git-http-server.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, projectRoot]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data((credential + "\n").utf8))
        try input.fileHandleForWriting.close()
        // The first line is the port; wait for it with a deadline.
        let line = LineReader(output.fileHandleForReading)
        guard let text = line.next(timeout: 20), let port = Int(text) else {
            process.terminate()
            throw ServerDidNotStart()
        }
        self.port = port
    }

    /// Stops answering (the process is stopped, its socket stays open).
    public func pause() { if process.isRunning { kill(process.processIdentifier, SIGSTOP) } }

    /// Kills the server and waits for it.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        kill(process.processIdentifier, SIGCONT)
        process.waitUntilExit()
    }

    deinit { stop() }

    /// The server printed no port within its deadline.
    public struct ServerDidNotStart: Error {}

    /// Reads one line from a pipe on a background thread, so the wait can have a deadline.
    final class LineReader: @unchecked Sendable {
        private var line: String?
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                var bytes = Data()
                while let byte = try? handle.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) {
                    bytes += byte
                }
                line = String(decoding: bytes, as: UTF8.self)
                done.signal()
            }
        }

        func next(timeout: TimeInterval) -> String? {
            done.wait(timeout: .now() + timeout) == .timedOut ? nil : line
        }
    }
}
