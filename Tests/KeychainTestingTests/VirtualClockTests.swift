import Foundation
import KeychainTesting
import LocalAuthentication
import Security
import Testing

/// The device's virtual clock: what waits on time happens when the test advances it, in well under a
/// second of wall time, the same every run.
@Suite struct VirtualClockTests {
    /// The wall time a test may take when scripts/test.sh runs this suite alone
    /// (`KEYCHAINTESTING_WALL_LIMIT_MS`, 1 s there): far less than the device time it covers, which no test
    /// could spend if it waited. In the full, parallel run the cores are shared with every other suite, so
    /// wall time is not checked there: the run alone is the check.
    static let wallLimit: Duration? =
        (ProcessInfo.processInfo.environment["KEYCHAINTESTING_WALL_LIMIT_MS"].flatMap { Int($0) })
        .map { .milliseconds($0) }

    /// Runs `body` and, when the suite runs alone, checks that it took less than ``wallLimit`` of wall time.
    /// Synchronous, as the tests are: nothing in them waits on the shared pool of Swift concurrency.
    func withinWallLimit(_ body: () throws -> Void) rethrows {
        let wall = ContinuousClock.now
        try body()
        if let limit = Self.wallLimit { #expect(ContinuousClock.now - wall < limit) }
    }

    static func close(_ a: Date?, _ b: Date) -> Bool { a.map { abs($0.timeIntervalSince(b)) < 0.001 } ?? false }

    @Test func autoLockAfterFiveMinutes() throws {
        try withinWallLimit {
            let device = try SimulatedDevice(passcode: "1234")
            try device.setAutoLock(.seconds(300))
            #expect(device.autoLock == .seconds(300))
            device.clock.advance(by: .seconds(299))
            #expect(!device.isLocked)
            device.clock.advance(by: .seconds(1))
            #expect(device.isLocked, "five minutes after the passcode was set")
            try device.unlock(passcode: "1234")
            device.clock.advance(by: .seconds(200))
            try device.unlock(passcode: "1234")  // an unlock re-arms the timer from now
            device.clock.advance(by: .seconds(200))
            #expect(!device.isLocked, "the earlier unlock's timer was voided")
            device.clock.advance(by: .seconds(100))
            #expect(device.isLocked)
        }
    }

    @Test func lockoutDelaysFollowTheClock() throws {
        try withinWallLimit {
            let device = try SimulatedDevice(passcode: "1234")
            device.lock()
            for _ in 1...5 { #expect(throws: KeychainError.self) { try device.unlock(passcode: "0000") } }
            #expect(
                Self.close(device.status.lockedOutUntil, device.clock.now.addingTimeInterval(60)),
                "the fifth wrong passcode: one minute")
            #expect { try device.unlock(passcode: "1234") } throws: {
                ($0 as? KeychainError)?.message.contains("try again in 60 s") == true
            }
            device.clock.advance(by: .seconds(59))
            #expect(throws: KeychainError.self) { try device.unlock(passcode: "1234") }
            device.clock.advance(by: .seconds(1))
            #expect(throws: KeychainError.self) { try device.unlock(passcode: "0000") }
            #expect(
                Self.close(device.status.lockedOutUntil, device.clock.now.addingTimeInterval(300)),
                "the sixth: five minutes")
            device.clock.advance(by: .seconds(300))
            try device.unlock(passcode: "1234")
            #expect(!device.isLocked && device.status.failedAttempts == 0)
        }
    }

    @Test func faceIDNeedsThePasscodeAfter48Hours() throws {
        try withinWallLimit {
            let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
            device.lock()
            try device.unlock(passcode: "1234")
            device.lock()
            device.clock.advance(by: .seconds(47 * 3600))
            try device.unlockWithBiometry()
            #expect(!device.isLocked, "47 hours after the passcode a face still unlocks")
            device.lock()
            device.clock.advance(by: .seconds(3600 + 1))
            #expect { try device.unlockWithBiometry() } throws: {
                ($0 as? KeychainError)?.message.contains("48 hours") == true
            }
            try device.unlock(passcode: "1234")
            device.lock()
            try device.unlockWithBiometry()
            #expect(!device.isLocked)
        }
    }

    @Test func biometricReuseDurationFollowsTheClock() throws {
        try withinWallLimit {
            let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
            device.lock()
            try device.unlock(passcode: "1234")
            device.lock()
            try device.unlockWithBiometry()
            device.run {
                #expect(TokenCode.save("secret", access: TokenCode.faceIDAccess()) == errSecSuccess)
                let context = LAContext()
                context.touchIDAuthenticationAllowableReuseDuration = 10
                device.clock.advance(by: .seconds(9))
                #expect(
                    TokenCode.read(context: context) == (errSecSuccess, "secret"),
                    "within the reuse duration: no prompt")
                #expect(device.prompts.raisedCount == 0)
                device.clock.advance(by: .seconds(2))
                #expect(TokenCode.read(context: context).0 == errSecUserCanceled, "past it: a prompt, canceled")
                #expect(device.prompts.raisedCount == 1)
            }
        }
    }

    /// Runs in the full parallel run too: nothing here waits on the cooperative pool (a blocking test holds
    /// its own thread; its polls sleep that thread) and the prompt's answers reach the reader without a
    /// Dispatch worker (the timeout's on the thread that advances the clock). Once, in CI on 2 cores, a
    /// poll here waited 160 s: the prompt's timeout was armed after the prompt showed as pending (fixed in
    /// PromptQueue.raise), and the poll slept on the pool that the blocking suites held.
    @Test func unansweredPromptTimesOutOnTheClock() throws {
        try withinWallLimit {
            let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
            device.prompts.automatic = nil
            device.prompts.timeout = .seconds(3600)  // an hour: a wall-clock wait could never pass the limit
            #expect(device.run { TokenCode.save("secret", access: TokenCode.faceIDAccess()) } == errSecSuccess)
            // A thread of its own: a read waiting for its prompt never holds one of the few threads the
            // parallel tests share.
            let read = device.runInBackground { TokenCode.read() }
            let deadline = ContinuousClock.now + .seconds(30)
            #expect(device.prompts.waitForPending(timeout: .seconds(30)) != nil)
            #expect(device.prompts.pending.count == 1)
            #expect(Self.close(device.prompts.pending.first?.raised, device.clock.now))
            device.clock.advance(by: .seconds(3599))
            #expect(device.prompts.pending.count == 1, "not yet")
            device.clock.advance(by: .seconds(1))
            // The timeout's answer reached the reader on this thread, inside advance; the reader's thread
            // still has to run. Should the prompt have come after the deadline, time moves on until it
            // ends, so the thread never outlives the test.
            while read.result == nil && ContinuousClock.now < deadline + .seconds(30) {
                usleep(1000)
                if !device.prompts.pending.isEmpty { device.clock.advance(by: .seconds(3600)) }
            }
            #expect(read.result?.0 == errSecUserCanceled, "the timeout ends it as a user cancel")
            #expect(device.prompts.pending.isEmpty)
        }
    }

    @Test func itemDatesAreTheDevicesTime() throws {
        try withinWallLimit {
            let device = try SimulatedDevice()
            let made = device.clock.now
            try device.run {
                #expect(TokenCode.save("one") == errSecSuccess)
                device.clock.advance(by: .seconds(3600))
                #expect(TokenCode.update("two") == errSecSuccess)
                let dates = try #require(TokenCode.dates())
                #expect(Self.close(dates.created, made))
                #expect(Self.close(dates.modified, made.addingTimeInterval(3600)))
            }
        }
    }

    @Test func timeNeverGoesBack() throws {
        let device = try SimulatedDevice()
        let start = device.clock.now
        device.clock.advance(by: .seconds(-5))
        #expect(Self.close(device.clock.now, start) && device.clock.now > start)
        device.clock.advance(by: .milliseconds(1500))
        #expect(Self.close(device.clock.now, start.addingTimeInterval(1.5)))
    }
}
