#if canImport(XCTest)
    import XCTest

    /// XCTest's way in: subclass it and each test method runs on a new device of its own (``device``), bound
    /// as `run { … }` binds it, `async` test methods included, and bound to the whole process for the test's
    /// duration (``SimulatedDevice/makeCurrent(as:)``), so calls from a DispatchQueue or a Thread reach it too. Override ``makeDevice()`` for another
    /// passcode, biometry or app; `setUp` already runs inside the binding.
    ///
    ///     final class TokenTests: SimulatedDeviceTestCase {
    ///         func testLockedRead() throws {
    ///             try TokenStore.save("abc")
    ///             device.lock()
    ///             XCTAssertThrowsError(try TokenStore.load())
    ///         }
    ///     }
    open class SimulatedDeviceTestCase: XCTestCase {
        /// The running test's device (nil outside a test method).
        public private(set) var device: SimulatedDevice!

        /// The device each test gets: a passcode of "1234", unlocked, no face enrolled, calls from ``App/unnamed``.
        open func makeDevice() throws -> SimulatedDevice { try SimulatedDevice(passcode: "1234") }

        /// The app the test's calls come from.
        open var app: App { .unnamed }

        open override func invokeTest() {
            do {
                device = try makeDevice()
            } catch {
                // A device that cannot be made fails the test instead of running it against no device.
                XCTFail("the simulated device could not be made: \(error)")
                return
            }
            defer { device = nil }
            // Code under test that hops to a DispatchQueue or a Thread loses the task's binding: the process
            // is bound for the test's duration too, so such a call reaches this device (XCTest runs one test
            // at a time), never the user's keychain.
            do {
                try device.makeCurrent(as: app)
            } catch {
                XCTFail("the simulated device could not be bound to the process: \(error)")
                return
            }
            defer { device.resignCurrent() }
            device.run(as: app) { super.invokeTest() }
        }
    }
#endif
