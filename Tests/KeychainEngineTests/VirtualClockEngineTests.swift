import Foundation
import KeychainFSEngine
import KeychainFSModel
import Synchronization
import Testing

/// The engine's clock seam: a virtual clock's timers, and the simulated device's vault that only an
/// engine on a virtual clock opens.
@Suite struct VirtualClockEngineTests {
    @Test func timersFireInOrderAtTheirOwnTime() {
        let clock = VirtualClock(startingAt: Date(timeIntervalSince1970: 0))
        let fired = FiredLog()
        clock.schedule(after: 20) { fired.note("b", clock.now()) }
        clock.schedule(after: 10) { fired.note("a", clock.now()) }
        clock.schedule(after: 30) { fired.note("c", clock.now()) }
        clock.advance(by: .seconds(25))
        #expect(fired.names == ["a", "b"], "earliest first, only those due")
        #expect(fired.times.map { $0.timeIntervalSince1970.rounded() } == [10, 20], "each at its own time")
        #expect(clock.pendingTimers == 1)
        clock.advance(by: .seconds(5))
        #expect(fired.names == ["a", "b", "c"])
    }

    /// A prompt is never seen pending before its timeout counts: a test that sees it and moves the clock
    /// past the timeout must end it (CI once saw the timer armed after the advance, and waited 120 s).
    @Test func aPendingPromptsTimeoutIsAlreadyArmed() async throws {
        for _ in 0..<200 {
            let clock = VirtualClock()
            let prompts = PromptQueue(clock: clock)
            prompts.autoMode = .off
            prompts.timeout = 60
            let answered = Mutex<PromptAnswer?>(nil)
            Thread.detachNewThread {
                prompts.raise(kind: .biometry, reason: "r", caller: Caller(), item: nil) { answer in
                    answered.withLock { $0 = answer }
                }
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while prompts.pending.isEmpty && ContinuousClock.now < deadline { await Task.yield() }
            #expect(clock.pendingTimers == 1, "the timeout is armed once the prompt is pending")
            clock.advance(by: .seconds(60))
            #expect(prompts.pending.isEmpty)
            #expect(answered.withLock { $0 } == .timeout)
        }
    }

    @Test func simulatedDeviceVaultOpensOnlyOnAVirtualClock() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kc-simulated-\(UUID().uuidString)"
        ).path
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: directory + ".device.key")
        }
        let vault = try Vault.create(at: directory, deviceKeyPath: directory + ".device.key", simulatedDevice: true)
        #expect(throws: KeychainError.self, "a daemon or CLI (wall clock) refuses the minimal derivation") {
            _ = try Keychain(vault: vault)
        }
        let keychain = try Keychain(vault: vault, clock: VirtualClock())
        try keychain.setPasscode(Data("1234".utf8))
        #expect(keychain.deviceStatus().testDevice)
    }
}

/// What the timers did, in order.
final class FiredLog: Sendable {
    private let entries = Mutex<[(String, Date)]>([])
    func note(_ name: String, _ time: Date) { entries.withLock { $0.append((name, time)) } }
    var names: [String] { entries.withLock { $0.map(\.0) } }
    var times: [Date] { entries.withLock { $0.map(\.1) } }
}
