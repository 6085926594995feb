import Foundation
import KeychainFSTestSupport

/// A throwaway HOME (git config), a vault path, and the built helpers on PATH: each test gets its own,
/// so the machine's git configuration and the default vault are never touched.
final class HelperSandbox {
    let root: String
    var home: String { root + "/home" }
    /// The vault the helpers use (`KEYCHAIN_VAULT`); a mounted vault's when one is given.
    let vault: String

    init(vault: String? = nil) throws {
        root = TestDirectory.root + "/kcfs-cred-" + UUID().uuidString.prefix(8)
        self.vault = vault ?? root + "/vault"
        try FileManager.default.createDirectory(atPath: root + "/home", withIntermediateDirectories: true)
        try expectSuccess(git(["config", "--global", "credential.helper", "keychainfs"]))
        try expectSuccess(git(["config", "--global", "user.name", "Test"]))
        try expectSuccess(git(["config", "--global", "user.email", "test@example.com"]))
        try expectSuccess(git(["config", "--global", "init.defaultBranch", "main"]))
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Only this sandbox's settings: no system config, no prompts, no askpass; the build directory
    /// first on PATH so that `credential.helper keychainfs` finds `git-credential-keychainfs`.
    var environment: [String: String] {
        let build = URL(fileURLWithPath: MountedVault.binary).deletingLastPathComponent().path
        return [
            "HOME": home, "XDG_CONFIG_HOME": home + "/.config", "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
            "GIT_ASKPASS": "", "SSH_ASKPASS": "", "LC_ALL": "C", "KEYCHAIN_VAULT": vault, "KEYCHAIN_ACCESS_GROUPS": "",
            "PATH": build + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
        ]
    }

    func git(_ arguments: [String], stdin: String? = nil, directory: String? = nil, timeout: TimeInterval = 60)
        -> CommandResult
    {
        Command.run(
            "/usr/bin/git", (directory.map { ["-C", $0] } ?? []) + arguments, stdin: stdin, environment: environment,
            timeout: timeout)
    }

    /// `git credential fill` for a URL (and extra lines); the answer as a dictionary, or nil if git failed.
    func fill(_ url: String) -> [String: String]? {
        let result = git(["credential", "fill"], stdin: "url=\(url)\n\n")
        return result.succeeded ? Self.lines(result.stdout) : nil
    }

    /// `git credential approve` (store) or `reject` (erase) of a URL with its username and password.
    func tell(_ verb: String, _ url: String, password: String) throws {
        try expectSuccess(git(["credential", verb], stdin: "url=\(url)\npassword=\(password)\n\n"))
    }

    /// Runs a helper directly, as git or Docker would.
    func helper(_ name: String, _ arguments: [String], stdin: String) -> CommandResult {
        Command.run(MountedVault.builtProgram(name), arguments, stdin: stdin, environment: environment)
    }

    /// Runs `keychainfs ARGS` on this sandbox's vault.
    func keychainfs(_ arguments: [String]) -> CommandResult {
        Command.run(MountedVault.binary, arguments, environment: environment)
    }

    static func lines(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }
}
