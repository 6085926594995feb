import Foundation
import Testing
import TestSupport

/// Creating an item through the mount (docs/spec.md §4, §7): `mkdir` is SecItemAdd, so once it returned the item
/// exists for every client and survives kill -9 of the daemon; a `close` that returned 0 committed its
/// value just as durably (SQLite WAL, synchronous=FULL: docs/filesystem.md, "Creating items and what survives").
@Suite struct CreationDurabilityTests {
    @Test func mkdirAndCloseSurviveKill9() throws {
        let m = try MountedVault()
        #expect(FS.mkdir(m.path("genp/svc")) == 0)
        for i in 0..<30 {
            #expect(FS.mkdir(m.path("genp/svc/made\(i)")) == 0)
            if i % 2 == 0 { #expect(FS.write(m.path("genp/svc/made\(i)/value"), "v\(i)") == 0) }
        }
        // Exists for the API at once: a conflicting add is a duplicate (exit 45), not a second item.
        let duplicate = m.cli(["add-generic-password", "-s", "svc", "-a", "made29", "-w", "other", m.vault])
        #expect(duplicate.status == 45, "errSecDuplicateItem: \(duplicate.stderr)")
        let pid = try #require(m.daemonPID)
        kill(pid, SIGKILL)
        #expect(m.wait(30) { !m.isMounted }, "auto_unmount removes the dead mount")
        try expectSuccess(m.remount())
        for i in 0..<30 {
            let found = m.cli(["find-generic-password", "-s", "svc", "-a", "made\(i)", "-w", m.vault])
            #expect(found.status == 0, "made\(i) survived kill -9")
            #expect(
                found.stdout == (i % 2 == 0 ? "v\(i)\n" : "\n"), "made\(i)'s value: \(found.stdout.debugDescription)")
        }
    }
}
