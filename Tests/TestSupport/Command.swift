import CSystem
import Foundation

/// The outcome of a finished command.
public struct CommandResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    public var succeeded: Bool { status == 0 }
}

/// Runs programs with a deadline: a command still running then is killed and reported as failed.
///
/// Spawned with posix_spawn, not Foundation's `Process`: swift-corelibs-foundation 6.3.1's `Process.run()`
/// reads past a buffer while it lists /proc/self/fd (swiftlang/swift-corelibs-foundation#5472) and crashed
/// the whole test process on CI, where the test kit's parallel devices keep many descriptors open.
public enum Command {
    public static func run(
        _ executable: String, _ arguments: [String], stdin: String? = nil, environment: [String: String]? = nil,
        timeout: TimeInterval = 30
    ) -> CommandResult {
        var input: [Int32] = [-1, -1], output: [Int32] = [-1, -1], errors: [Int32] = [-1, -1]
        guard keychainfs_pipe_cloexec(&input) == 0, keychainfs_pipe_cloexec(&output) == 0,
            keychainfs_pipe_cloexec(&errors) == 0
        else {
            for fd in input + output + errors where fd >= 0 { close(fd) }
            return CommandResult(status: -1, stdout: "", stderr: "cannot make pipes for \(executable): errno \(errno)")
        }
        let spawned = spawn(executable, arguments, environment: environment, fds: (input[0], output[1], errors[1]))
        close(input[0]); close(output[1]); close(errors[1])
        let pid: pid_t
        switch spawned {
        case .success(let spawnedPID): pid = spawnedPID
        case .failure(let error):
            close(input[1]); close(output[0]); close(errors[0])
            return CommandResult(status: -1, stdout: "", stderr: "cannot run \(executable): \(error)")
        }
        // Drain both pipes while waiting so a chatty command cannot block on a full pipe.
        let stdoutData = Drain(FileHandle(fileDescriptor: output[0], closeOnDealloc: true))
        let stderrData = Drain(FileHandle(fileDescriptor: errors[0], closeOnDealloc: true))
        let writer = FileHandle(fileDescriptor: input[1], closeOnDealloc: true)
        if let stdin { try? writer.write(contentsOf: Data(stdin.utf8)) }
        try? writer.close()
        let exit = Exit(pid)
        guard let status = exit.status(within: timeout) else {
            kill(pid, SIGKILL)
            _ = exit.status(within: 5)
            return CommandResult(
                status: -9, stdout: stdoutData.result(), stderr: "timed out after \(timeout) s\n" + stderrData.result())
        }
        return CommandResult(status: status, stdout: stdoutData.result(), stderr: stderrData.result())
    }

    /// Starts `executable` and leaves it running, its standard input and error /dev/null: its pid and the
    /// read end of its standard output (the caller closes it, and stops and waits for the child).
    public static func start(_ executable: String, _ arguments: [String], environment: [String: String]? = nil)
        -> (pid: pid_t, stdout: Int32)?
    {
        var output: [Int32] = [-1, -1]
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        guard null >= 0, keychainfs_pipe_cloexec(&output) == 0 else { return nil }
        let spawned = spawn(executable, arguments, environment: environment, fds: (null, output[1], null))
        close(output[1])
        guard case .success(let pid) = spawned else {
            close(output[0])
            return nil
        }
        return (pid, output[0])
    }

    /// posix_spawn with `fds` as the child's standard input, output and error, and nothing else of the test
    /// process (its mounts' and devices' descriptors); as Process does, the child starts with no signal
    /// blocked and every signal at its default (a dbus-daemon with SIGCHLD blocked never sees the services
    /// it started exit).
    private static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String]?, fds: (Int32, Int32, Int32)
    ) -> Result<pid_t, SpawnFailed> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds.0, 0)
        posix_spawn_file_actions_adddup2(&actions, fds.1, 1)
        posix_spawn_file_actions_adddup2(&actions, fds.2, 2)
        keychainfs_spawn_close_from(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let variables = ProcessInfo.processInfo.environment.merging(environment ?? [:]) { $1 }.map {
            "\($0.key)=\($0.value)"
        }
        var pid: pid_t = 0
        let spawned = withCStrings([executable] + arguments) { argv in
            withCStrings(variables) { envp in posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
        }
        return spawned == 0 ? .success(pid) : .failure(SpawnFailed(errno: spawned))
    }

    struct SpawnFailed: Error, CustomStringConvertible {
        let errno: Int32
        var description: String { String(cString: strerror(errno)) }
    }

    /// Calls `body` with a NULL-terminated C array of `strings`, valid for the call.
    private static func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}

/// A child's exit, waited for on a thread of its own: its status (as Process reports it: the exit code, or
/// the signal's number for a killed child), or nil if it has not ended in time.
final class Exit: @unchecked Sendable {
    private var code: Int32 = -1
    private let ended = DispatchSemaphore(value: 0)

    init(_ pid: pid_t) {
        Thread.detachNewThread { [self] in
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
            let signal = raw & 0x7f
            code = signal == 0 ? (raw >> 8) & 0xff : signal
            ended.signal()
        }
    }

    func status(within seconds: TimeInterval) -> Int32? {
        guard ended.wait(timeout: .now() + seconds) == .success else { return nil }
        ended.signal()  // a later call answers at once
        return code
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
