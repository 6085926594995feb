import KeychainFSCSystem
import Foundation

/// The process side shared by both helpers: standard input in, an outcome out.
package enum HelperProcess {
    /// A helper holds a secret in memory: no core dumps, no ptrace by other users' processes.
    package static func harden() {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
        _ = keychainfs_set_nondumpable()
    }

    /// The most a helper reads from standard input: 8 MiB (a secret at the 1 MiB value limit, JSON-escaped
    /// by Docker, fits; git and Docker send a few hundred bytes).
    package static let maximumInput = 8 << 20

    /// Standard input to its end; nil when it is longer than ``maximumInput`` (the rest is not read, so
    /// `< /dev/zero` ends at once).
    package static func readInput() -> Data? {
        var input = Data()
        while input.count <= maximumInput, let chunk = try? FileHandle.standardInput.read(upToCount: 1 << 16),
            !chunk.isEmpty
        { input += chunk }
        return input.count <= maximumInput ? input : nil
    }

    /// What a helper says of an input over ``maximumInput``.
    package static let inputTooLarge = "the input is larger than 8 MiB"

    /// Writes the outcome and exits with its status.
    package static func finish(_ outcome: HelperOutcome) -> Never {
        if !outcome.stdout.isEmpty { FileHandle.standardOutput.write(outcome.stdout) }
        if !outcome.stderr.isEmpty { FileHandle.standardError.write(Data(outcome.stderr.utf8)) }
        exit(outcome.status)
    }
}

/// What a helper action printed and how the process exits.
package struct HelperOutcome: Sendable {
    /// What goes to standard output (git's and Docker's answer).
    package var stdout = Data()
    /// What goes to standard error (why something failed).
    package var stderr = ""
    /// The exit status.
    package var status: Int32 = 0

    /// An outcome; by default silent success.
    package init(stdout: Data = Data(), stderr: String = "", status: Int32 = 0) {
        self.stdout = stdout
        self.stderr = stderr
        self.status = status
    }
}
