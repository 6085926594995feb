import Foundation
import Synchronization
import Testing
import KeychainFSTestSupport

/// Renames of paths whose item moved or went away behind the kernel's cached dentry (docs/filesystem.md, "Renames"):
/// libfuse's high-level path locking waited for itself on `rename(old, old)`, in D state for good.
@Suite struct StalePathTests {
    let m: MountedVault
    init() throws { m = try MountedVault() }

    /// `rename(path, path)` from a separate process, so a hang is seen, ended and reported.
    func selfRename(_ path: String) -> Int32? {
        let script =
            "import os, sys\ntry:\n    os.rename(sys.argv[1], sys.argv[1])\nexcept OSError as e:\n    sys.exit(e.errno)\n"
        return ConnectionAbort.runOrAbort("/usr/bin/python3", ["-c", script, path], mount: m.mount)
    }

    @Test func renamingAnItemOntoItselfAfterItMovedReturns() throws {
        let old = m.path("inet/example.com/alice")
        #expect(FS.mkdir(m.path("inet/example.com")) == 0)
        #expect(FS.mkdir(old) == 0)
        #expect(FS.write(old + "/value", "pw") == 0)
        #expect(FS.inode(old) != nil && FS.inode(old + "/value") != nil, "the kernel caches both dentries")
        #expect(FS.setxattr(old, "user.kSecAttrServer", "other.com") == 0, "the item moves to inet/other.com/alice")
        #expect(selfRename(old) == ENOENT, "the stale source no longer exists (nil: it hung)")
        #expect(selfRename(old + "/value") == ENOENT)
        #expect(FS.text(m.path("inet/other.com/alice/value")) == "pw", "the moved item is intact")
    }

    @Test func renamingADeletedItemOntoItselfReturns() throws {
        let item = m.makeItem(service: "svc", account: "gone")
        #expect(FS.write(item + "/value", "x") == 0)
        #expect(FS.inode(item + "/value") != nil)
        let deleted = m.cli(["delete-generic-password", "-s", "svc", "-a", "gone", m.vault])
        #expect(deleted.succeeded, "\(deleted.stderr)")
        #expect(selfRename(item) == ENOENT)
        #expect(selfRename(item + "/value") == ENOENT)
        #expect(m.isMounted)
    }
}

/// Renames back and forth, with the entry invalidations they cause, never wedge the mount: an entry
/// invalidation waits for the directory lock of a rename in flight, and once held a lock that rename's
/// own invalidations then waited for (found by CI under load; each run here is bounded and aborts the
/// connection on a hang).
@Suite struct RenameLoadTests {
    @Test func manyRenamesInParallelFinish() throws {
        let m = try MountedVault()
        #expect(FS.mkdir(m.path("genp/svc")) == 0)
        for account in ["a", "b", "c", "d"] { #expect(FS.mkdir(m.path("genp/svc/\(account)")) == 0) }
        let script = """
            import os, sys
            base, name = sys.argv[1], sys.argv[2]
            for i in range(300):
                os.rename(f"{base}/{name}", f"{base}/{name}-x")
                os.rename(f"{base}/{name}-x", f"{base}/{name}")
            """
        let statuses = Mutex<[Int32?]>([])
        let service = m.path("genp/svc"), mount = m.mount
        DispatchQueue.concurrentPerform(iterations: 4) { i in
            let status = ConnectionAbort.runOrAbort(
                "/usr/bin/python3", ["-c", script, service, ["a", "b", "c", "d"][i]],
                mount: mount, seconds: 60)
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.withLock { $0 } == [0, 0, 0, 0], "every rename loop ended (nil: hung)")
        #expect(FS.list(m.path("genp/svc")) == .success(["a", "b", "c", "d"]))
    }
}
