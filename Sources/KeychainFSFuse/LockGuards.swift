import Foundation
import KeychainFSEngine

/// The filesystem's protections of the lock (docs/spec.md §4: no read after `device lock` by any path) that a test
/// may switch off, to show that the tests of those protections can fail. Honoured only for a vault made
/// with `--test-device`, and only from the daemon's environment at mount.
package struct LockGuards: Sendable, Equatable {
    /// Writers' buffers (which may hold the secret they opened) are wiped when their class becomes
    /// unavailable, and writable handles check the lock on every read.
    package var wipeWriters = true
    /// What the kernel caches of items and values (pages, attributes, dentries) is invalidated on every
    /// device change and item change (``KernelCache``).
    package var invalidateKernelCache = true
    /// Control commands obey the access policy (`--strict`, rules, their `allow`); off, the daemon answers
    /// every control request as the mount's default caller (docs/entry-points.md's test shows it then fails).
    package var controlAccess = true
    /// A reader that continues a version past offset 0 gets EIO once the item holds another version,
    /// never the other version's bytes at its offset (docs/filesystem.md, "One version per read").
    package var oneVersionPerRead = true
    /// Not a guard of the lock but switched off the same way: the ``MountWatchdog`` that takes the mount
    /// down when the daemon dies stuck in the kernel.
    package var mountWatchdog = true

    /// `KEYCHAINFS_TEST_DISABLE_GUARDS=wipe-writers,invalidate-kernel-cache,control-access,mount-watchdog,one-version-per-read`
    package static let environmentVariable = TestSwitches.environmentVariable

    package init() {}

    /// The guards in force: all of them, unless a test device's environment switches some off.
    package static func inForce(testDevice: Bool, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> LockGuards
    {
        var guards = LockGuards()
        func on(_ name: String) -> Bool { !TestSwitches.isOff(name, testDevice: testDevice, environment: environment) }
        guards.wipeWriters = on("wipe-writers")
        guards.invalidateKernelCache = on("invalidate-kernel-cache")
        guards.controlAccess = on("control-access")
        guards.mountWatchdog = on("mount-watchdog")
        guards.oneVersionPerRead = on("one-version-per-read")
        return guards
    }
}
