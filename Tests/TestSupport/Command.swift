import Foundation

/// The outcome of a finished command.
public struct CommandResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var succeeded: Bool { status == 0 }
}

/// Runs programs with a deadline: a command still running then is killed and reported as failed.
public enum Command {
    public static func run(_ executable: String, _ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil,
                    timeout: TimeInterval = 30) -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        do { try ProcessEnvironment.lock.withLock { try process.run() } } catch {
            return CommandResult(status: -1, stdout: "", stderr: "cannot run \(executable): \(error)")
        }
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? input.fileHandleForWriting.close()
        // Drain both pipes while waiting so a chatty command cannot block on a full pipe.
        let stdoutData = Drain(out.fileHandleForReading), stderrData = Drain(err.fileHandleForReading)
        if done.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            _ = done.wait(timeout: .now() + 5)
            return CommandResult(status: -9, stdout: stdoutData.result(), stderr: "timed out after \(timeout) s\n" + stderrData.result())
        }
        return CommandResult(status: process.terminationStatus, stdout: stdoutData.result(), stderr: stderrData.result())
    }
}

/// Reads a pipe to its end on a background thread.
final class Drain: @unchecked Sendable {
    private var data = Data()
    private let finished = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            finished.signal()
        }
    }

    func result() -> String {
        _ = finished.wait(timeout: .now() + 5)
        return String(decoding: data, as: UTF8.self)
    }
}
