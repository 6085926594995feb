import KeychainFSCSystem
import Foundation

/// Keeps secrets out of core dumps and takes over the termination signals.
enum ProcessHardening {
    /// No core dumps, no ptrace by other users' processes (PR_SET_DUMPABLE 0 covers both).
    static func disableCoreDumps() {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &limit)
        _ = keychainfs_set_nondumpable()
        keychainfs_limit_malloc_arenas()
    }

    /// Every few seconds, hands memory freed by large operations (listings of thousands of items) back
    /// to the system, so the daemon's RSS follows what it holds, not what it once needed.
    static func trimMemoryPeriodically(every seconds: UInt32 = 5) {
        let thread = Thread {
            while true {
                sleep(seconds)
                keychainfs_trim_memory()
            }
        }
        thread.name = "keychainfs-trim"
        thread.start()
    }

    /// Blocks SIGTERM/SIGINT/SIGHUP in every thread (call before starting any) and hands each one that
    /// arrives to `handler` on a dedicated thread. A parent such as Foundation.Process may hand us a mask that blocks them
    /// already, so the mask is reset first (docs/reference/fuse-from-swift.md).
    static func onTerminationSignal(_ handler: @escaping @Sendable (Int32) -> Void) {
        var set = sigset_t()
        sigemptyset(&set)
        sigprocmask(SIG_SETMASK, &set, nil)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&set, signal) }
        sigprocmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
        let waitSet = set
        let thread = Thread {
            var mask = waitSet
            var received: Int32 = 0
            while true {
                while sigwait(&mask, &received) != 0 {}
                handler(received)
            }
        }
        thread.name = "keychainfs-signals"
        thread.start()
    }
}
