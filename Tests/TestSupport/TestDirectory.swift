import Foundation

/// Where tests make their vaults and mounts: `$TMPDIR` (scripts/test.sh points it at a directory of its
/// run, so its clean-up touches only this run's mounts), else /tmp.
public enum TestDirectory {
    public static let root: String = {
        let directory = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }()
}
