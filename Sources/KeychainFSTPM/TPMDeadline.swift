import Foundation

/// Every TPM call waits for the TPM at most ``seconds``: a stopped swtpm, a wedged chip or a TCTI socket
/// that accepts and never answers would otherwise hang the daemon, the CLI or a test for ever (tpm2-tss's
/// synchronous calls wait without end). The call runs on a thread of its own; one past the deadline is
/// abandoned with its connection, which is then never freed, since the call may still use it.
/// `KEYCHAINFS_TPM_TIMEOUT` (whole seconds, 1 to 600) sets it; 30 by default.
enum TPMDeadline {
    static let variable = "KEYCHAINFS_TPM_TIMEOUT"

    static let seconds: Int = {
        let named = ProcessInfo.processInfo.environment[variable].flatMap { Int($0) } ?? 30
        return min(max(named, 1), 600)
    }()

    /// What `body` returned, or nil when it did not return within the deadline.
    static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T? {
        let outcome = Outcome<T>()
        let thread = Thread { outcome.finish(body()) }
        thread.name = "keychainfs-tpm"
        thread.start()
        guard outcome.done.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
        return outcome.value
    }

    static var message: String { "did not answer within \(seconds) s (\(variable) sets the deadline)" }
}

/// A call's result, handed from its thread (the semaphore orders the write before the read).
private final class Outcome<T: Sendable>: @unchecked Sendable {
    var value: T?
    let done = DispatchSemaphore(value: 0)
    func finish(_ result: T) {
        value = result
        done.signal()
    }
}

/// The C connection, handed to the call's thread: used by one call at a time.
struct TPMHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
