import Foundation

/// The protections a test switches off to show that their tests can fail: the names listed in
/// `KEYCHAINFS_TEST_DISABLE_GUARDS` (comma-separated), honoured for a vault made as a test device only.
public enum TestSwitches {
    public static let environmentVariable = "KEYCHAINFS_TEST_DISABLE_GUARDS"

    /// Whether the protection `name` is switched off for a vault that is (`testDevice`) or is not a test device.
    public static func isOff(
        _ name: String, testDevice: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        guard testDevice, let listed = environment[environmentVariable] else { return false }
        return listed.split(separator: ",").contains { $0 == name }
    }
}
