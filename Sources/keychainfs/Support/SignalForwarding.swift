import Foundation
import Synchronization

/// Passes SIGTERM, SIGHUP and SIGINT sent to this process on to one child (`ci-keyring`'s COMMAND), so
/// that this process lives to clean up. A real handler, not a dispatch source: dispatch sources on Linux
/// read a signalfd that only sees a signal some thread blocks, and whether the main thread blocks it
/// depends on where dispatch made the source, so a SIGTERM could be ignored and lost (seen under load).
/// A signal that comes before the child's pid is known is kept and sent once it is, exactly once.
enum SignalForwarding {
    static let signals = [SIGTERM, SIGHUP, SIGINT]

    /// Installs the handler on every forwarded signal and unblocks them in this thread (a parent may have
    /// handed us a mask that blocks them). The child gets them at their default: exec resets handlers.
    static func install() {
        target.store(0, ordering: .sequentiallyConsistent)  // made here, never first in the handler
        pending.store(0, ordering: .sequentiallyConsistent)
        var set = sigset_t()
        sigemptyset(&set)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = forward
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        for number in signals {
            sigaddset(&set, number)
            sigaction(number, &action, nil)
        }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    /// The first signal that came before any child was known, if one did.
    static var received: Int32? {
        let bits = pending.load(ordering: .sequentiallyConsistent)
        return signals.first { bits & bit($0) != 0 }
    }

    /// From now on signals go to `pid`; those that came before are sent now.
    static func forward(to pid: pid_t) {
        target.store(pid, ordering: .sequentiallyConsistent)
        let bits = pending.exchange(0, ordering: .sequentiallyConsistent)
        for number in signals where bits & bit(number) != 0 { kill(pid, number) }
    }

    private static let target = Atomic<Int32>(0)
    private static let pending = Atomic<UInt32>(0)
    private static func bit(_ number: Int32) -> UInt32 { 1 << UInt32(number) }

    /// Async-signal-safe: atomics and kill only. The signal is marked pending first; whoever clears the
    /// mark sends it, so a signal racing `forward(to:)` is sent once, by one of the two.
    private static let forward: @convention(c) (Int32) -> Void = { number in
        let mark = UInt32(1) << UInt32(number)
        SignalForwarding.pending.bitwiseOr(mark, ordering: .sequentiallyConsistent)
        let pid = SignalForwarding.target.load(ordering: .sequentiallyConsistent)
        guard pid > 0 else { return }
        let before = SignalForwarding.pending.bitwiseAnd(~mark, ordering: .sequentiallyConsistent).oldValue
        if before & mark != 0 { kill(pid, number) }
    }
}
