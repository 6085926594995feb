import KeychainFSEngine
import KeychainFSModel

extension SimulatedDevice {
    /// The device's Face ID, driven as `keychainfs device biometry …` drives it.
    public struct Biometry: Sendable {
        let engine: Keychain

        /// Enrols a face (again): `.biometryCurrentSet` items made before become unusable. Needs a passcode.
        public func enroll() throws(KeychainError) { try engine.enrollBiometry() }

        /// Removes the enrolment: biometry-only items become unusable until the next enrolment.
        public func unenroll() { engine.unenrollBiometry() }

        /// Whether a face is enrolled.
        public var isEnrolled: Bool { engine.biometryStatus().enrolled }
    }
}
