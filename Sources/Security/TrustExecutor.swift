import Dispatch
import Foundation
import Synchronization

/// The thread swift-certificates' async verifier runs on for the synchronous SecTrust calls. The caller
/// blocks until the result is there; were the validation a task on the cooperative pool, a caller that
/// is itself on a pool thread could hold the last thread the validation needs (two cores: two threads)
/// and neither would ever finish. Jobs here run on a thread of their own, one at a time.
final class TrustExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = TrustExecutor()

    // `jobs` is guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        let thread = Thread { [self] in runJobs() }
        thread.name = "SecTrust evaluation"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func runJobs() -> Never {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }

    /// `operation`'s result, run on this executor's thread; nil if it has not finished within `timeout`
    /// seconds (a guard against a hang, not a budget: an evaluation takes milliseconds).
    func result<T: Sendable>(within timeout: TimeInterval, of operation: @escaping @Sendable () async -> T) -> T? {
        let outcome = Outcome<T>()
        Task(executorPreference: self) {
            let value = await operation()
            outcome.value.withLock { $0 = value }
            outcome.done.signal()
        }
        guard outcome.done.wait(timeout: .now() + timeout) == .success else { return nil }
        return outcome.value.withLock { $0 }
    }

    private final class Outcome<T: Sendable>: Sendable {
        let value = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
    }
}
