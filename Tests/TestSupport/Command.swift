import KeychainFSChildProcesses
import Foundation

/// The outcome of a finished command.
public struct CommandResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var succeeded: Bool { status == 0 }
}

/// Runs programs with a deadline (``ChildProcess``, as the product starts its own children): a command still
/// running then is killed and reported as failed.
public enum Command {
    public static func run(
        _ executable: String, _ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil,
        timeout: TimeInterval = 30
    ) -> CommandResult {
        let variables = ProcessInfo.processInfo.environment.merging(environment ?? [:]) { $1 }
        let output: ChildProcess.Output
        do {
            output = try ChildProcess.run(
                executable, arguments, environment: variables, input: stdin.map { Data($0.utf8) }, timeout: timeout)
        } catch {
            return CommandResult(status: -1, stdout: "", stderr: "\(error)")
        }
        let stdout = String(decoding: output.stdout, as: UTF8.self)
        let stderr = String(decoding: output.stderr, as: UTF8.self)
        guard !output.timedOut else {
            return CommandResult(status: -9, stdout: stdout, stderr: "timed out after \(timeout) s\n" + stderr)
        }
        return CommandResult(status: output.status, stdout: stdout, stderr: stderr)
    }

    /// Starts `executable` and leaves it running (a bus daemon, a daemon in the foreground), its standard
    /// input and error /dev/null: its pid and the read end of its standard output. The caller closes that,
    /// and stops and waits for the child.
    public static func start(_ executable: String, _ arguments: [String], environment: [String: String]? = nil)
        -> (pid: pid_t, stdout: Int32)?
    {
        var output: [Int32] = [-1, -1]
        guard pipe(&output) == 0 else { return nil }
        for fd in output { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        defer { close(output[1]) }
        let variables = ProcessInfo.processInfo.environment.merging(environment ?? [:]) { $1 }
        do {
            let pid = try ChildProcess.spawn(
                executable, arguments, environment: variables, stdout: .descriptor(output[1]))
            return (pid, output[0])
        } catch {
            close(output[0])
            return nil
        }
    }
}
