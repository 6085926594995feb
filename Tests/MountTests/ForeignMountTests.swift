import Foundation
import Testing
import KeychainFSTestSupport

/// scripts/test.sh detaches only its own mounts. Tests/Scripts/test-sh-leaves-other-mounts.sh
/// runs test.sh on this test alone with KEYCHAINFS_TEST_FOREIGN_MOUNT naming a directory outside the run: the
/// test mounts a vault there during the run, as another user or another test run would, and leaves it for
/// the script, which checks that it is still mounted and then unmounts it. Without the variable it is skipped.
@Suite struct ForeignMountTests {
    static let foreign = ProcessInfo.processInfo.environment["KEYCHAINFS_TEST_FOREIGN_MOUNT"]

    @Test(.enabled(if: foreign != nil, "run by Tests/Scripts/test-sh-leaves-other-mounts.sh"))
    func aMountOutsideTheRunAppearsDuringIt() throws {
        let root = try #require(Self.foreign)
        try expectSuccess(
            Command.run(
                MountedVault.binary, ["init", root + "/vault", "--test-device"],
                environment: ["XDG_STATE_HOME": root + "/state"]))
        try expectSuccess(Command.run(MountedVault.binary, ["mount", root + "/vault", root + "/mnt"]))
        #expect(MountedVault.mountTable().contains(" \(root)/mnt "))
    }
}
