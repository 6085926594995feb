import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel

/// A throwaway vault (a test device) mounted by the real `keychainfs` binary. ``close()`` (also run at
/// deinit) always leaves no mount behind: `keychainfs unmount`, then a forced detach and SIGKILL.
public final class MountedVault {
    /// A program built next to the CLI (e.g. `security-probe`).
    public static func builtProgram(_ name: String) -> String {
        URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// The built CLI, next to the test bundle; `KEYCHAINFS_TEST_BINARY` names another build (to show that
    /// a new test fails on an earlier release: build that release and point this at its binary).
    public static let binary: String = {
        if let other = ProcessInfo.processInfo.environment["KEYCHAINFS_TEST_BINARY"], !other.isEmpty { return other }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var directory = URL(fileURLWithPath: exe).deletingLastPathComponent()
        while !directory.path.hasSuffix("/debug") && !directory.path.hasSuffix("/release") && directory.path != "/" {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("keychainfs").path
    }()

    public let root: String
    public let vault: String
    public let mount: String
    private var closed = false

    /// `initEnvironment` and `mountEnvironment` are added to `init`'s and the daemon's environments
    /// (test-only switches).
    public init(
        mountArguments: [String] = [], initArguments: [String] = ["--test-device"],
        initEnvironment: [String: String] = [:], mountEnvironment: [String: String]? = nil
    ) throws {
        root = TestDirectory.root + "/kcfs-test-" + UUID().uuidString.prefix(8)
        vault = root + "/vault"
        mount = root + "/mnt"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // Device keys go to the test's own state directory, never the machine's ~/.local/state.
        try expectSuccess(
            Command.run(
                Self.binary, ["init", vault] + initArguments,
                environment: initEnvironment.merging(["XDG_STATE_HOME": root + "/state"]) { $1 }, timeout: 30))
        do {
            try expectSuccess(
                Command.run(
                    Self.binary, ["mount", vault, mount] + mountArguments, environment: mountEnvironment, timeout: 30))
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Runs `keychainfs ARGS`.
    public func cli(_ arguments: [String], stdin: String? = nil) -> CommandResult {
        Command.run(Self.binary, arguments, stdin: stdin, timeout: 30)
    }

    /// Runs `keychainfs device ARGS --mount MOUNT`.
    @discardableResult
    public func device(_ arguments: String..., passcode: String? = nil) -> CommandResult {
        cli(
            ["device"] + arguments + ["--mount", mount] + (passcode == nil ? [] : ["--passcode-stdin"]),
            stdin: passcode.map { $0 + "\n" })
    }

    public func path(_ relative: String) -> String { mount + "/" + relative }

    /// The control socket, for what the filesystem cannot express (names longer than NAME_MAX).
    package var control: ControlClient { ControlClient(vault: Vault(directory: vault)) }

    public var daemonPID: Int32? {
        guard let status = try? control.send(ControlRequest(.status)).check()?.dictionaryValue else { return nil }
        return status["pid"]?.numberValue.map { Int32($0) }
    }

    public var isMounted: Bool { Self.mountTable().contains(" \(mount) fuse.keychainfs ") }

    /// All of /proc/self/mounts (read to its end: one read returns one page of it).
    public static func mountTable() -> String {
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/mounts") else { return "" }
        defer { try? handle.close() }
        var text = Data()
        while let chunk = try? handle.read(upToCount: 65536), !chunk.isEmpty { text.append(chunk) }
        return String(decoding: text, as: UTF8.self)
    }

    /// Waits (at most `timeout`) for `condition`.
    public func wait(_ timeout: TimeInterval = 10, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    /// Unmounts (gracefully, then by force) and makes sure the daemon is gone; the vault stays.
    public func unmount() {
        let pid = daemonPID
        if isMounted { _ = Command.run(Self.binary, ["unmount", mount], timeout: 15) }
        if isMounted {
            umount2(mount, Int32(MNT_DETACH))
            _ = Command.run("/bin/fusermount3", ["-u", "-z", mount], timeout: 5)
        }
        if let pid, kill(pid, 0) == 0 { kill(pid, SIGKILL) }
    }

    /// Mounts the vault again (after ``unmount()``), with `environment` added to the daemon's.
    @discardableResult
    public func remount(_ arguments: [String] = [], environment: [String: String]? = nil) -> CommandResult {
        Command.run(Self.binary, ["mount", vault, mount] + arguments, environment: environment, timeout: 30)
    }

    /// Unmounts and removes everything.
    public func close() {
        guard !closed else { return }
        closed = true
        unmount()
        try? FileManager.default.removeItem(atPath: root)
    }
}

public struct CommandFailed: Error, CustomStringConvertible {
    public let result: CommandResult
    public var description: String { "exit \(result.status): \(result.stderr)\(result.stdout)" }
}

public func expectSuccess(_ result: CommandResult) throws {
    if !result.succeeded { throw CommandFailed(result: result) }
}
