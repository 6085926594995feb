import KeychainFSChildProcesses
import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Foundation

/// Debian's `git` as a subprocess that cannot hang or prompt: an explicit identity and default branch, no
/// terminal prompts, ssh in batch mode, no system config or hooks, and a deadline on every call.
package struct GitRunner: Sendable {
    /// The working tree git runs in.
    package let directory: String
    /// Seconds each git call may take before it is killed.
    package var deadlineSeconds: TimeInterval = 60

    /// A runner for the clone at `directory`.
    package init(directory: String) { self.directory = directory }

    /// What a git call printed.
    package struct Output: Sendable {
        /// The exit status (-1 when killed at its deadline).
        package let status: Int32
        /// Standard output.
        package let stdout: String
        /// Standard error.
        package let stderr: String
        /// Standard output as bytes (a file's content: `git show`).
        package let stdoutData: Data
    }

    /// Runs git and throws unless it succeeds.
    @discardableResult
    package func run(_ arguments: [String], environment extra: [String: String] = [:]) throws(KeychainError) -> String {
        let output = try call(arguments, environment: extra)
        guard output.status == 0 else {
            throw KeychainError(
                SecStatus.io,
                "git \(arguments.first ?? "") failed: \(output.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return output.stdout
    }

    /// Runs git and returns its output whatever its status; `extra` adds to its environment (e.g. GIT_INDEX_FILE).
    package func call(_ arguments: [String], environment extra: [String: String] = [:]) throws(KeychainError) -> Output
    {
        let argv =
            [
                "-c", "user.name=keychainfs", "-c", "user.email=keychainfs@invalid", "-c", "init.defaultBranch=main",
                "-c", "core.hooksPath=/dev/null", "-c", "commit.gpgSign=false", "-c", "core.askPass=",
            ] + arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GIT_") }
        environment["GIT_TERMINAL_PROMPT"] = "0"
        environment["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes"
        environment["GIT_CONFIG_NOSYSTEM"] = "1"
        environment["GIT_ASKPASS"] = "/bin/false"
        environment["LC_ALL"] = "C"
        environment.merge(extra) { $1 }
        let output: ChildProcess.Output
        do {
            output = try ChildProcess.run(
                "/usr/bin/git", argv, environment: environment, directory: directory, timeout: deadlineSeconds)
        } catch {
            throw KeychainError(SecStatus.notAvailable, "cannot run git (install Debian's git package): \(error)")
        }
        if output.timedOut {
            throw KeychainError(
                SecStatus.io,
                "git \(arguments.first ?? "") did not finish within \(Int(deadlineSeconds)) s and was stopped")
        }
        return Output(
            status: output.status, stdout: String(decoding: output.stdout, as: UTF8.self),
            stderr: String(decoding: output.stderr, as: UTF8.self), stdoutData: output.stdout)
    }
}
