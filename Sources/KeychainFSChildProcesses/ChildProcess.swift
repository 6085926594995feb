import KeychainFSCSystem
import Foundation

/// Every program keychainfs starts (git, fusermount3, the mount's watchdog, the daemon in the background,
/// dbus-daemon, the tests' commands) starts this one way: the descriptors it is given as 0, 1 and 2 and no
/// other of ours (a daemon's /dev/fuse or vault lock held by a child would keep a dead mount alive; a test's
/// would leak into its commands), no signal blocked and every signal at its default (the daemon blocks its
/// termination signals), optionally in a session of its own.
///
/// posix_spawn, not Foundation's `Process`: swift-corelibs-foundation 6.3.1's `Process.run()` reads past a
/// buffer while it lists /proc/self/fd (swiftlang/swift-corelibs-foundation#5472), which crashed a test
/// process with many descriptors open, as a daemon has.
package enum ChildProcess {
    /// What a child gets as one of its standard descriptors.
    package enum Standard: Sendable {
        /// /dev/null.
        case null
        /// A descriptor of ours, duplicated into the child (ours stays open; close it after the spawn).
        case descriptor(Int32)
    }

    /// Why a program could not be started.
    package struct SpawnError: Error, Sendable, CustomStringConvertible {
        package let executable: String
        package let code: Int32
        package var description: String { "cannot run \(executable): \(String(cString: strerror(code)))" }
    }

    /// Starts `executable` with `arguments` (argv[1...]) and returns its pid; the caller waits for it
    /// (``Exit``). `environment` nil passes ours on.
    package static func spawn(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        directory: String? = nil, stdin: Standard = .null, stdout: Standard = .null, stderr: Standard = .null,
        newSession: Bool = false
    ) throws(SpawnError) -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, standard, flags) in [(Int32(0), stdin, O_RDONLY), (1, stdout, O_WRONLY), (2, stderr, O_WRONLY)] {
            switch standard {
            case .null: posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", flags, 0)
            case .descriptor(let ours): posix_spawn_file_actions_adddup2(&actions, ours, fd)
            }
        }
        keychainfs_spawn_close_from(&actions, 3)
        if let directory { keychainfs_spawn_chdir(&actions, directory) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        let setsid: Int32 = newSession ? 0x80 : 0  // POSIX_SPAWN_SETSID: no terminal's or group's signal
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | setsid))
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        var spawned: Int32 = 0
        // ETXTBSY: the program is open for writing somewhere. In a process with threads that is usually a
        // copy just written here whose descriptor a child spawned meanwhile by another thread still holds
        // until it closes it or execs (the fork/exec race every multithreaded spawner has; it failed a test
        // in CI): that ends in moments, so ask again, for at most a second.
        for attempt in 1...Self.busyAttempts {
            spawned = withCStrings([executable] + arguments) { argv in
                withCStrings(variables) { envp in posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
            }
            guard spawned == ETXTBSY, attempt < Self.busyAttempts else { break }
            usleep(10_000)
        }
        guard spawned == 0 else { throw SpawnError(executable: executable, code: spawned) }
        return pid
    }

    /// How often a spawn meets a busy executable (ETXTBSY) before it says so, 10 ms apart.
    static let busyAttempts = 100

    /// A finished program's status and output.
    package struct Output: Sendable {
        /// The exit code, or the signal's number for a killed child (as `Process` reports it); -9 when it
        /// was stopped at the deadline.
        package var status: Int32
        package var stdout: Data
        package var stderr: Data
        /// Whether it ran past its deadline and was killed.
        package var timedOut: Bool
    }

    /// Runs `executable` to its end with `input` on its standard input, collecting at most `outputLimit`
    /// bytes of each output (the rest is read and dropped, so a chatty child never blocks); a child still
    /// running after `timeout` seconds is killed.
    package static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        input: Data? = nil, timeout: TimeInterval, outputLimit: Int = 64 << 20
    ) throws(SpawnError) -> Output {
        var stdin: [Int32] = [-1, -1], stdout: [Int32] = [-1, -1], stderr: [Int32] = [-1, -1]
        guard keychainfs_pipe_cloexec(&stdin) == 0, keychainfs_pipe_cloexec(&stdout) == 0,
            keychainfs_pipe_cloexec(&stderr) == 0
        else {
            let code = errno
            for fd in stdin + stdout + stderr where fd >= 0 { close(fd) }
            throw SpawnError(executable: executable, code: code)
        }
        let pid: pid_t
        do {
            pid = try spawn(
                executable, arguments, environment: environment, directory: directory,
                stdin: .descriptor(stdin[0]), stdout: .descriptor(stdout[1]), stderr: .descriptor(stderr[1]))
        } catch {
            for fd in stdin + stdout + stderr { close(fd) }
            throw error
        }
        close(stdin[0])
        close(stdout[1])
        close(stderr[1])
        let out = Drain(stdout[0], limit: outputLimit), err = Drain(stderr[0], limit: outputLimit)
        // A child that does not read its input must not block us: written on a thread of its own.
        let writer = stdin[1]
        Thread.detachNewThread {
            if let input { input.withUnsafeBytes { writeAll($0, to: writer) } }
            close(writer)
        }
        let exit = Exit(pid)
        guard let status = exit.status(within: timeout) else {
            kill(pid, SIGKILL)
            _ = exit.status(within: 5)
            return Output(status: -9, stdout: out.result(), stderr: err.result(), timedOut: true)
        }
        return Output(status: status, stdout: out.result(), stderr: err.result(), timedOut: false)
    }

    /// Writes what a child may never read: a child that exits first makes the write fail with EPIPE, never
    /// a SIGPIPE that would end this process (the CLI and the tests do not ignore it): blocked on this
    /// thread, and a pending one taken before the thread ends.
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32) {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
        defer {
            var now = timespec()
            while sigtimedwait(&pipeSignal, nil, &now) == SIGPIPE {}
        }
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }

    /// Calls `body` with a NULL-terminated C array of `strings`, valid for the call.
    private static func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
        let pointers = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}
