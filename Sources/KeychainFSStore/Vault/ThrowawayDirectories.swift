import Foundation
import Synchronization

/// The directories of simulated devices' vaults made in this process (KeychainTesting): throwaway files
/// in a private temporary directory, gone with the test. Their writes skip fsync and their database runs
/// `synchronous = OFF`, the marked work a test device may skip (a crash loses nothing anyone keeps).
/// Only ``Vault/create(at:deviceKeyPath:testDevice:simulatedDevice:)`` adds one; nothing read from disk does.
enum ThrowawayDirectories {
    private static let directories = Mutex<Set<String>>([])

    static func add(_ directories: [String]) { Self.directories.withLock { $0.formUnion(directories) } }

    /// Forgets `directories` (their device is gone).
    static func remove(_ directories: [String]) { Self.directories.withLock { $0.subtract(directories) } }

    /// Whether the file at `path` belongs to a throwaway vault.
    static func contains(fileAt path: String) -> Bool {
        let parent = (path as NSString).deletingLastPathComponent
        return directories.withLock { !$0.isEmpty && $0.contains(parent) }
    }
}

extension Vault {
    /// Forgets that the simulated device's vault at `directory` (with its device key at `deviceKeyPath`)
    /// skips fsync: call it when the device's files are removed.
    public static func forgetThrowaway(_ directory: String, deviceKeyPath: String) {
        ThrowawayDirectories.remove(Self.throwawayDirectories(directory, deviceKeyPath))
    }

    static func throwawayDirectories(_ directory: String, _ deviceKeyPath: String) -> [String] {
        [
            URL(fileURLWithPath: directory).standardizedFileURL.path,
            (URL(fileURLWithPath: deviceKeyPath).standardizedFileURL.path as NSString).deletingLastPathComponent,
        ]
    }
}
