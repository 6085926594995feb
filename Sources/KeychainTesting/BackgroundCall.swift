import Foundation
import Synchronization

extension SimulatedDevice {
    /// Starts `body` on a thread of its own, bound to this device as `run(as:_:)` binds it, and
    /// returns at once: for a call that waits at a prompt the test answers (`prompts.automatic = nil`, then
    /// `prompts.pending` and `prompts.answerPending`). A SecItem call waiting at a prompt blocks its thread;
    /// made in a task (`async let`), it would hold one of the cooperative pool's threads, one per core, which
    /// every test running in parallel shares, and the test that should answer could wait for a thread.
    /// The calls come from `app`, else from the app bound where this is called (the test's), else ``App/unnamed``.
    public func runInBackground<T: Sendable>(as app: App? = nil, _ body: @escaping @Sendable () -> T)
        -> BackgroundCall<T>
    {
        let app = backgroundApp(app)
        let call = BackgroundCall<T>()
        Thread.detachNewThread { [self] in call.finish(run(as: app, body)) }
        return call
    }

    /// ``runInBackground(as:_:)`` of a throwing `body` (`device.runInBackground { try store.load() }`): the
    /// call's result is its value or the error it threw.
    public func runInBackground<T: Sendable>(as app: App? = nil, _ body: @escaping @Sendable () throws -> T)
        -> BackgroundCall<Result<T, any Error>>
    {
        runInBackground(as: app) { Result { try body() } }
    }

    private func backgroundApp(_ app: App?) -> App {
        if let app { return app }
        guard SimulatedDevice.current === self else { return .unnamed }
        return SimulatedDevice.currentApp ?? .unnamed
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
