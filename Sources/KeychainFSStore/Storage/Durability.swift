import Foundation

/// How the item database commits (docs/filesystem.md): `synchronous = FULL` in WAL mode, so a commit that returned
/// has its WAL frames fsynced and survives a power cut, not only the daemon's death.
///
/// `KEYCHAINFS_TEST_DISABLE_GUARDS=durability` (the lock guards' variable), for a test device only: the
/// database runs `synchronous = NORMAL` as it once did (the WAL is fsynced at checkpoints only), so
/// that the power-cut test (`PowerCutTests`) shows it can fail.
package enum Durability: Sendable {
    /// Every commit fsyncs the WAL before it returns.
    case full
    /// The WAL is fsynced at checkpoints only: a power cut may take the last commits (test only).
    case normal
    /// A simulated device's throwaway database: nothing synced (``ThrowawayDirectories``).
    case off

    package static let testSwitch = "durability"

    /// The durability of the database at `path` of a vault whose config says `testDevice`.
    package static func of(
        databaseAt path: String, testDevice: Bool, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Durability {
        if ThrowawayDirectories.contains(fileAt: path) { return .off }
        let disabled = environment["KEYCHAINFS_TEST_DISABLE_GUARDS"]?.split(separator: ",") ?? []
        return testDevice && disabled.contains { $0 == testSwitch } ? .normal : .full
    }

    var pragma: String {
        switch self {
        case .full: "FULL"
        case .normal: "NORMAL"
        case .off: "OFF"
        }
    }
}
