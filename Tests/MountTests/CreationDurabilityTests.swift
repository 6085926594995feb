import Foundation
import Testing
import KeychainFSTestSupport

/// Creating an item through the mount (docs/spec.md §4, §7; docs/filesystem.md "Creating items and what
/// survives"): `mkdir` makes an item in the making, held by the daemon only; the `close` that writes its
/// value stores it with one SecItemAdd, committed (SQLite WAL, synchronous=FULL), so once it returned the
/// item exists for every client and survives kill -9 of the daemon. An item never written is never stored.
/// (When mkdir stored an empty item, this test then expected the unwritten half to survive.)
@Suite struct CreationDurabilityTests {
    @Test func closeStoresTheItemAndItSurvivesKill9() throws {
        let m = try MountedVault()
        #expect(FS.mkdir(m.path("genp/svc")) == 0)
        for i in 0..<30 {
            #expect(FS.mkdir(m.path("genp/svc/made\(i)")) == 0)
            if i % 2 == 0 { #expect(FS.write(m.path("genp/svc/made\(i)/value"), "v\(i)") == 0) }
        }
        // A written one exists for the API at once: a conflicting add is a duplicate (exit 45).
        let duplicate = m.cli(["add-generic-password", "-s", "svc", "-a", "made28", "-w", "other", m.vault])
        #expect(duplicate.status == 45, "errSecDuplicateItem: \(duplicate.stderr)")
        // One in the making is not in the keychain: the API neither finds it nor conflicts with it.
        #expect(m.cli(["find-generic-password", "-s", "svc", "-a", "made29", m.vault]).status == 44)
        let pid = try #require(m.daemonPID)
        kill(pid, SIGKILL)
        #expect(m.wait(30) { !m.isMounted }, "auto_unmount removes the dead mount")
        try expectSuccess(m.remount())
        for i in 0..<30 {
            let found = m.cli(["find-generic-password", "-s", "svc", "-a", "made\(i)", "-w", m.vault])
            if i % 2 == 0 {
                #expect(found.status == 0 && found.stdout == "v\(i)\n", "made\(i) survived kill -9: \(found.stdout)")
            } else {
                #expect(found.status == 44, "made\(i), never written, was never stored")
            }
        }
        #expect(FS.list(m.path("genp/svc")).map { $0.count } == .success(15), "only the written ones remain")
    }
}
