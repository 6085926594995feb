import Foundation
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

@Suite("sync through a mounted vault's daemon", .serialized)
struct SyncThroughDaemonTests {
    @Test("while locked after first unlock, the daemon syncs (and merges with its own sync key)")
    func lockedAfterFirstUnlockSyncs() throws {
        let group = try SyncGroup()
        let m = try MountedVault()
        defer { m.close() }
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try group.add(
            m.vault, service: "svc-daemon", account: "acct-daemon", secret: "secret-daemon", label: "label-daemon")
        try expectSuccess(m.device("lock"))
        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", m.vault]))
        let v2 = try group.makeVault("v2")
        try group.join(v2, invitedBy: m.vault)
        #expect(try group.secret(v2, service: "svc-daemon", account: "acct-daemon") == "secret-daemon")

        // Concurrent changes: v2's later update conflicts with the daemon's, and the daemon's merge driver settles it.
        try group.update(
            m.vault, service: "svc-daemon", account: "acct-daemon", ["v_Data": .data(Data("secret-daemon-2".utf8))])
        Thread.sleep(forTimeInterval: 0.05)
        try group.update(v2, service: "svc-daemon", account: "acct-daemon", ["v_Data": .data(Data("secret-v2".utf8))])
        try group.sync(v2)
        try group.sync(m.vault)
        #expect(try group.secret(m.vault, service: "svc-daemon", account: "acct-daemon") == "secret-v2")
        let status = group.cli(["sync", "status", "--vault", m.vault])
        try expectSuccess(status)
        #expect(status.stdout.contains("configured: yes"))

        // The circle's commands through the daemon, still locked: members, rotate, remove.
        let members = group.cli(["sync", "members", "--vault", m.vault])
        try expectSuccess(members)
        #expect(members.stdout.contains("v2\t") && members.stdout.contains("(this vault)"), "\(members.stdout)")
        let rotated = group.cli(["sync", "rotate", "--vault", m.vault])
        try expectSuccess(rotated)
        #expect(rotated.stdout.contains("new epoch"))
        try expectSuccess(group.cli(["sync", "remove", "v2", "--vault", m.vault]))
        let removed = group.cli(["sync", "--vault", v2])
        #expect(removed.status != 0 && removed.stderr.contains("removed from its circle"), "\(removed.stderr)")
    }
}

@Suite("sync on a timer", .serialized)
struct SyncIntervalTests {
    @Test("a daemon mounted with --sync-interval brings in a change pushed by another vault, unasked")
    func mountSyncsOnItsOwn() throws {
        let group = try SyncGroup()
        let first = try group.makeVault("first")
        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", first]))
        let second = try group.makeVault("second")
        try group.join(second, invitedBy: first)
        let mount = group.root + "/mnt"
        try expectSuccess(group.cli(["mount", first, mount, "--sync-interval", "1"]))
        defer { _ = group.cli(["unmount", mount]); umount2(mount, Int32(MNT_DETACH)) }
        try group.add(second, service: "svc-timer", account: "acct-timer", secret: "secret-timer", label: "label-timer")
        try group.sync(second)
        let value = mount + "/genp/svc-timer/acct-timer;sync=1/value"
        let deadline = Date().addingTimeInterval(20)
        var seen: String?
        while Date() < deadline && seen == nil {
            seen = try? String(contentsOfFile: value, encoding: .utf8)
            if seen == nil { usleep(200_000) }
        }
        #expect(seen == "secret-timer", "the timer's sync brought the item into the mount")
    }
}
