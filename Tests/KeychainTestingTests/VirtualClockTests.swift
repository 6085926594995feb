import Foundation
import KeychainTesting
import LocalAuthentication
import Security
import Synchronization
import Testing

/// The device's virtual clock: what waits on time happens when the test advances it, in well under a
/// second of wall time, the same every run.
@Suite struct VirtualClockTests {
    /// The wall time a test may take when scripts/test.sh runs this suite alone
    /// (`KEYCHAINTESTING_WALL_LIMIT_MS`, 1 s there): far less than the device time it covers, which no test
    /// could spend if it waited. In the full, parallel run the cores are shared with every other suite (a
    /// poll for a pending prompt waited 160 s for a thread there once), so wall time is not checked: the
    /// run alone is the check.
    static let wallLimit: Duration? =
        (ProcessInfo.processInfo.environment["KEYCHAINTESTING_WALL_LIMIT_MS"].flatMap { Int($0) })
        .map { .milliseconds($0) }

    /// Runs `body` and, when the suite runs alone, checks that it took less than ``wallLimit`` of wall time.
    func withinWallLimit(_ body: () async throws -> Void) async rethrows {
        let wall = ContinuousClock.now
        try await body()
        if let limit = Self.wallLimit { #expect(ContinuousClock.now - wall < limit) }
    }

    static func close(_ a: Date?, _ b: Date) -> Bool { a.map { abs($0.timeIntervalSince(b)) < 0.001 } ?? false }

    @Test func autoLockAfterFiveMinutes() async throws {
        try await withinWallLimit {
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

    @Test func lockoutDelaysFollowTheClock() async throws {
        try await withinWallLimit {
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

    @Test func faceIDNeedsThePasscodeAfter48Hours() async throws {
        try await withinWallLimit {
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

    @Test func biometricReuseDurationFollowsTheClock() async throws {
        try await withinWallLimit {
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

    /// Run only when the suite runs alone (scripts/test.sh does, after the parallel run): its reader waits on
    /// a thread of its own for the timeout's answer, and in the full parallel run, where blocking suites hold
    /// every worker thread, that answer once took minutes to be delivered (CI, 2 cores).
    @Test(.enabled(if: VirtualClockTests.wallLimit != nil, "runs in scripts/test.sh's run of this suite alone"))
    func unansweredPromptTimesOutOnTheClock() async throws {
        try await withinWallLimit {
            let device = try SimulatedDevice(passcode: "1234", biometryEnrolled: true)
            device.prompts.automatic = nil
            device.prompts.timeout = .seconds(3600)  // an hour: a wall-clock wait could never pass the limit
            #expect(device.run { TokenCode.save("secret", access: TokenCode.faceIDAccess()) } == errSecSuccess)
            // A thread of its own: a read waiting for its prompt never holds one of the few threads the
            // parallel tests share.
            let read = Mutex<(OSStatus, String?)?>(nil)
            Thread.detachNewThread {
                let result = device.run { TokenCode.read() }; read.withLock { $0 = result }
            }
            let deadline = ContinuousClock.now + .seconds(120)
            while device.prompts.pending.isEmpty && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            #expect(device.prompts.pending.count == 1)
            #expect(Self.close(device.prompts.pending.first?.raised, device.clock.now))
            device.clock.advance(by: .seconds(3599))
            #expect(device.prompts.pending.count == 1, "not yet")
            device.clock.advance(by: .seconds(1))
            // The timeout's answer reaches the reader on its thread; should the prompt have come late, time
            // moves on until it ends, so the thread never outlives the test.
            while read.withLock({ $0 }) == nil && ContinuousClock.now < deadline + .seconds(60) {
                try await Task.sleep(for: .milliseconds(1))
                if !device.prompts.pending.isEmpty && ContinuousClock.now > deadline {
                    device.clock.advance(by: .seconds(3600))
                }
            }
            #expect(read.withLock { $0 }?.0 == errSecUserCanceled, "the timeout ends it as a user cancel")
            #expect(device.prompts.pending.isEmpty)
        }
    }

    @Test func itemDatesAreTheDevicesTime() async throws {
        try await withinWallLimit {
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
