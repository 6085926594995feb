import Foundation
import KeychainFSEngine
import KeychainFSModel
import Synchronization
import Testing
import KeychainFSTestSupport

/// A prompt's answer reaches its caller without a Dispatch worker: on 2 cores, tests waiting in SecItem
/// calls can hold every worker of Dispatch's global queue, and an answer queued there came minutes late
/// (the libdispatch pool adds a worker about once a second). The starving runs in a test process of its
/// own, so that no other test waits meanwhile.
@Suite struct PromptDeliveryTests {
    static let childVariable = "KEYCHAINFS_TEST_STARVE_DISPATCH"

    @Test func answersNeedNoDispatchWorker() throws {
        let child = try ChildTest.run(
            "PromptDeliveryTests/answersArriveWhileDispatchIsStarved", environment: [Self.childVariable: "1"])
        #expect(child.succeeded, "\(child.stdout.suffix(3000))\(child.stderr.suffix(1000))")
        #expect(child.stderr.contains("answersArriveWhileDispatchIsStarved() passed"), "the child ran the test")
    }

    /// Run by ``answersNeedNoDispatchWorker()`` in a process of its own: every worker of Dispatch's global
    /// queue waits, 64 more blocks wait behind them, and an automatic answer and a hand-given one must
    /// still reach their prompts within 2 s.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[PromptDeliveryTests.childVariable] == "1"))
    func answersArriveWhileDispatchIsStarved() {
        let release = DispatchSemaphore(value: 0)
        let started = Atomic<Int>(0)
        let blockers = 64 + ProcessInfo.processInfo.activeProcessorCount
        for _ in 0..<blockers {
            DispatchQueue.global().async {
                started.add(1, ordering: .relaxed)
                release.wait()
            }
        }
        defer { for _ in 0..<blockers { release.signal() } }
        let saturated = ContinuousClock.now + .seconds(10)
        while started.load(ordering: .relaxed) < ProcessInfo.processInfo.activeProcessorCount
            && ContinuousClock.now < saturated
        {
            usleep(1000)
        }

        let prompts = PromptQueue(clock: VirtualClock())  // automatic answer: cancel
        let automatic = DispatchSemaphore(value: 0)
        prompts.raise(kind: .biometry, reason: "r", caller: Caller(), item: nil) { _ in automatic.signal() }
        #expect(automatic.wait(timeout: .now() + 2) == .success, "the automatic answer arrived")

        prompts.autoMode = .off
        let byHand = DispatchSemaphore(value: 0)
        prompts.raise(kind: .biometry, reason: "r", caller: Caller(), item: nil) { _ in byHand.signal() }
        #expect((try? prompts.answer(.match, next: false)) != nil)
        #expect(byHand.wait(timeout: .now() + 2) == .success, "the answer given by hand arrived")
    }
}
