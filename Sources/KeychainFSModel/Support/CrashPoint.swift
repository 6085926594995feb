import Foundation

/// Named moments inside crash windows (a passcode change between its keybag write and the new state, a
/// delete before its commit, …) where a test build can die by SIGKILL on purpose, so the crash tests hit the
/// window every time instead of hoping a random kill lands in it.
///
/// `KEYCHAINFS_CRASH_AT=NAME` (or `NAME#N`: at the N-th time the point is reached) chooses the point. It is
/// honoured only in debug builds or once a `--test-device` vault is open (``enableForTestDevice()``): a
/// release build serving a real vault ignores it. Before dying, the process writes the point's name to
/// `KEYCHAINFS_CRASH_REPORT` (a file path) when set, so a test can assert that the point was reached.
public enum CrashPoint {
    private static let chosen: (name: String, hit: Int)? = {
        guard let spec = ProcessInfo.processInfo.environment["KEYCHAINFS_CRASH_AT"], !spec.isEmpty else { return nil }
        let parts = spec.split(separator: "#", maxSplits: 1).map(String.init)
        return (parts[0], parts.count == 2 ? max(1, Int(parts[1]) ?? 1) : 1)
    }()
    private static let state = CrashPointState()

    /// Allows crash points in a release build: called when the vault open is a test device.
    package static func enableForTestDevice() { state.enable() }

    /// Dies here by SIGKILL when this is the chosen point (and crash points are allowed), after `prepare`
    /// (which sets up the moment, say a thread blocked in the kernel, only when the point fires).
    public static func reach(_ name: String, after prepare: () -> Void = {}) {
        guard let chosen, chosen.name == name else { return }
        #if DEBUG
            let allowed = true
        #else
            let allowed = state.enabled
        #endif
        guard allowed, state.count() == chosen.hit else { return }
        if let report = ProcessInfo.processInfo.environment["KEYCHAINFS_CRASH_REPORT"] {
            let fd = open(report, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 { _ = name.withCString { write(fd, $0, strlen($0)) }; fsync(fd); close(fd) }
        }
        prepare()
        kill(getpid(), SIGKILL)
    }
}

/// The counter and switch behind ``CrashPoint`` (a lock: points are reached from any thread).
private final class CrashPointState: @unchecked Sendable {
    private let lock = NSLock()
    private var hits = 0
    private var on = false
    var enabled: Bool { lock.withLock { on } }
    func enable() { lock.withLock { on = true } }
    func count() -> Int {
        lock.withLock {
            hits += 1; return hits
        }
    }
}
