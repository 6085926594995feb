import Foundation
import Synchronization

extension SimulatedDevice {
    /// Starts `body` on a thread of its own, bound to this device as `run(as:_:)` binds it, and
    /// returns at once: for a call that waits at a prompt the test answers (`prompts.automatic = nil`, then
    /// `prompts.pending` and `prompts.answerPending`). A SecItem call waiting at a prompt blocks its thread;
    /// made in a task (`async let`), it would hold one of the cooperative pool's threads, one per core, which
    /// every test running in parallel shares, and the test that should answer could wait for a thread.
    public func runInBackground<T: Sendable>(as app: App = .unnamed, _ body: @escaping @Sendable () -> T)
        -> BackgroundCall<T>
    {
        let call = BackgroundCall<T>()
        Thread.detachNewThread { [self] in call.finish(run(as: app, body)) }
        return call
    }
}

/// A call ``SimulatedDevice/runInBackground(as:_:)`` runs on a thread of its own.
public final class BackgroundCall<T: Sendable>: Sendable {
    private let outcome = Mutex<T?>(nil)

    init() {}

    func finish(_ value: T) { outcome.withLock { $0 = value } }

    /// The call's result; nil while it runs.
    public var result: T? { outcome.withLock { $0 } }

    /// The call's result, waiting for it (this thread sleeps) up to `timeout`; nil if it is still running.
    public func wait(timeout: Duration) -> T? { poll(for: timeout) { result } }
}
