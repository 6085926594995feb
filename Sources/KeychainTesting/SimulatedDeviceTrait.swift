#if canImport(Testing)
    import Testing

    /// `@Test(.simulatedDevice(passcode: "1234"))`: the test runs on a new device of its own, bound as
    /// `run { … }` binds it (the test's task and its child tasks), reachable as ``SimulatedDevice/current``.
    /// Parameterized tests get one device per argument.
    public struct SimulatedDeviceTrait: TestTrait, TestScoping {
        let passcode: String?
        let biometryEnrolled: Bool
        let app: App

        public func provideScope(
            for test: Test, testCase: Test.Case?,
            performing function: @Sendable () async throws -> Void
        ) async throws {
            let device = try SimulatedDevice(passcode: passcode, biometryEnrolled: biometryEnrolled)
            try await device.run(as: app) { try await function() }
        }
    }

    extension Trait where Self == SimulatedDeviceTrait {
        /// Runs the test on a new ``SimulatedDevice`` (passcode or none, a face enrolled or not), its calls made
        /// by `app` (``App/unnamed`` unless given); inside, `SimulatedDevice.current!` is the device.
        public static func simulatedDevice(passcode: String? = nil, biometryEnrolled: Bool = false, app: App = .unnamed)
            -> Self
        {
            SimulatedDeviceTrait(passcode: passcode, biometryEnrolled: biometryEnrolled, app: app)
        }
    }
#endif
