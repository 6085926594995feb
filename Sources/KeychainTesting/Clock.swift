import Foundation
import KeychainFSEngine
import KeychainFSModel

extension SimulatedDevice {
    /// The device's time: it stands still until the test advances it. Auto-lock, lockout delays, prompt
    /// timeouts, the 48-hour biometric rule, `touchIDAuthenticationAllowableReuseDuration` and item
    /// creation and modification dates follow it, so no test sleeps and every run is the same.
    public struct Clock: Sendable {
        let clock: VirtualClock

        /// Moves the device's time forward by `duration` (a negative one is ignored): what falls due by
        /// then (an auto-lock, a prompt's timeout) happens, in order, before this returns.
        public func advance(by duration: Duration) { clock.advance(by: duration) }

        /// The device's current time (it starts at the wall-clock time the device was made). Each reading is
        /// a microsecond after the last, so no two events share an instant: compare dates with a tolerance.
        public var now: Date { clock.now() }
    }
}
