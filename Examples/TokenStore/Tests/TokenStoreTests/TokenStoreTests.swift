// The kit exists where keychainfs's Security module does; on Apple platforms these tests are left out.
#if canImport(KeychainTesting)
    import KeychainTesting
    import Testing
    import TokenStore

    /// Each test runs on a simulated device of its own (`.simulatedDevice`): in parallel, no daemon, no sleeps.
    @Suite struct TokenStoreTests {
        let store = TokenStore()

        @Test(.simulatedDevice(passcode: "1234")) func saveAndLoad() throws {
            try store.save("abc", account: "me")
            #expect(try store.load(account: "me") == "abc")
            try store.delete(account: "me")
            #expect(throws: TokenStore.Failure.notFound) { try store.load(account: "me") }
        }

        @Test(.simulatedDevice(passcode: "1234")) func aLockedDeviceKeepsAfterFirstUnlockTokens() throws {
            let device = try #require(SimulatedDevice.current)
            try store.save("abc", account: "me")
            device.lock()
            #expect(try store.load(account: "me") == "abc", "AfterFirstUnlock: readable while locked")
            device.reboot()
            #expect(throws: TokenStore.Failure.locked) { try store.load(account: "me") }
            try device.unlock(passcode: "1234")
            #expect(try store.load(account: "me") == "abc")
        }

        @Test(.simulatedDevice(passcode: "1234")) func aPrewarmedLaunchFailsAndTheTokenSurvives() throws {
            let device = try #require(SimulatedDevice.current)
            try store.save("abc", account: "me")
            try device.launch(.prewarm)
            #expect(throws: TokenStore.Failure.locked) { try store.load(account: "me") }
            #expect(!device.events.contains { $0.call?.operation == .delete }, "the app never deleted its token")
            try device.launch(.foreground)
            #expect(try store.load(account: "me") == "abc")
        }

        @Test(.simulatedDevice(passcode: "1234", biometryEnrolled: true)) func faceIDMatchCancelAndLockout() throws {
            let device = try #require(SimulatedDevice.current)
            try store.save("abc", account: "me", faceID: true)
            device.prompts.answerNext(.match)
            #expect(try store.load(account: "me") == "abc")
            #expect(throws: TokenStore.Failure.canceled, "nobody answers: the default cancel") {
                try store.load(account: "me")
            }
            for _ in 1...5 {
                device.prompts.answerNext(.noMatch)
                #expect(throws: TokenStore.Failure.notRecognized) { try store.load(account: "me") }
            }
            device.prompts.answerNext(.match)
            #expect(throws: TokenStore.Failure.notRecognized, "five misses lock Face ID out") {
                try store.load(account: "me")
            }
        }

        @Test func twoAppsShareAGroup() throws {
            let device = try SimulatedDevice(passcode: "1234")
            let app = App(
                bundleID: "com.example.app", accessGroups: ["TEAM.com.example.app", "TEAM.com.example.shared"])
            let widget = App(
                bundleID: "com.example.widget", accessGroups: ["TEAM.com.example.widget", "TEAM.com.example.shared"])
            let shared = TokenStore(accessGroup: "TEAM.com.example.shared")
            try device.run(as: app) {
                try shared.save("abc", account: "me")
                try TokenStore().save("private", account: "own")  // the app's first group
            }
            try device.run(as: widget) { () throws in
                #expect(try shared.load(account: "me") == "abc")
                #expect(throws: TokenStore.Failure.notFound, "the app's own group is not the widget's") {
                    try TokenStore().load(account: "own")
                }
                #expect(throws: TokenStore.Failure.missingEntitlement) {
                    try TokenStore(accessGroup: "TEAM.com.example.app").load(account: "me")
                }
            }
        }

        @Test(.simulatedDevice(passcode: "1234")) func autoLockAfterFiveMinutesOnTheVirtualClock() throws {
            let device = try #require(SimulatedDevice.current)
            try store.save("abc", account: "face", faceID: true)
            try device.setAutoLock(.seconds(300))
            device.clock.advance(by: .seconds(299))
            #expect(!device.isLocked)
            device.clock.advance(by: .seconds(1))
            #expect(device.isLocked)
            device.prompts.answerNext(.match)
            #expect(throws: TokenStore.Failure.locked, "WhenUnlocked: not while locked, whatever the face") {
                try store.load(account: "face")
            }
        }
    }
#endif
