import ArgumentParser
import Foundation

/// Becoming another program with execvp: nothing of keychainfs stays between the command and its terminal,
/// its parent or its signals; the signals the parent ignored stay ignored, as with `env`.
enum ProcessReplacement {
    /// Replaces this process with `command` in `environment`; returns only by throwing (126 / 127 as shells do).
    static func exec(_ command: [String], environment: [String: String]) throws -> Never {
        // This process is about to become the command: its own environment is the command's.
        clearenv()
        for (name, value) in environment { setenv(name, value, 1) }
        let arguments = command.map { strdup($0) } + [nil]
        // Ignored signals are left as keychainfs got them (it ignores none itself): exec keeps them, so
        // `nohup keychainfs run -- CMD` leaves SIGHUP ignored in CMD, as `nohup env CMD` does. The mask is
        // emptied: a spawner's thread pool blocks every signal, and CMD must still stop on SIGTERM.
        var none = sigset_t()
        sigemptyset(&none)
        sigprocmask(SIG_SETMASK, &none, nil)
        // Buffered output of ours must not follow the command's.
        fflush(nil)
        execvp(command[0], arguments)
        let error = errno
        clearenv()
        throw failWorkflow(
            "run", "\(command[0]): \(String(cString: strerror(error)))", code: ExitCode(error == ENOENT ? 127 : 126))
    }
}
