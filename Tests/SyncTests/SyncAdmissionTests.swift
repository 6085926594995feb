import Foundation
import KeychainFSModel
import KeychainFSSync
import Testing
import KeychainFSTestSupport

/// Invite and join admit the joiner's identity (docs/sync.md, "Invite and join"): the code authenticates both sides.
@Suite("sync admission: invitation codes and join requests", .serialized)
struct SyncAdmissionTests {
    @Test("the fingerprint join prints is the one the inviter admits and lists: people can compare them")
    func fingerprintsMatch() throws {
        let group = try SyncGroup()
        let a = try group.makeVault("a"), b = try group.makeVault("b")
        try group.found(a)
        let invite = group.cli(["sync", "invite", "--vault", a])
        try expectSuccess(invite)
        let joined = group.cli(
            ["sync", "join", group.remote, "--vault", b, "--code-stdin", "--name", "b"], stdin: invite.stdout)
        try expectSuccess(joined)
        let fingerprint = try #require(joined.stdout.firstMatch(of: /fingerprint ([0-9a-f]{4}(-[0-9a-f]{4}){4})/)?.1)
        let admitted = group.cli(["sync", "--vault", a])
        #expect(admitted.stdout.contains("admitted b (fingerprint \(fingerprint))"), "\(admitted.stdout)")
        let members = group.cli(["sync", "members", "--vault", a]).stdout
        #expect(members.contains("b\t\(fingerprint)\tadded by a"), "\(members)")
        let status = group.cli(["sync", "status", "--vault", b]).stdout
        #expect(status.contains("fingerprint: \(fingerprint)"), "\(status)")
    }

    @Test("a join request the host forges without the code is refused and reported; nobody is added")
    func forgedRequestRefused() throws {
        let group = try SyncGroup()
        let a = try group.makeVault("a")
        try group.found(a)
        let invite = group.cli(["sync", "invite", "--vault", a])
        try expectSuccess(invite)
        let name = try InvitationCode.parse(invite.stdout).fileName
        // The host sees the invitation's file name and writes a request under it, with keys of its own.
        let forged = ValueCodec.encode(
            .dictionary([
                "name": .string("host"), "sign": .data(Data(repeating: 1, count: 32)),
                "box": .data(Data(repeating: 2, count: 32)), "mac": .data(Data(repeating: 3, count: 32)),
            ]))
        try group.pushAsHost("forged-request") { work in
            try FileManager.default.createDirectory(atPath: work + "/requests", withIntermediateDirectories: true)
            try forged.write(to: URL(fileURLWithPath: work + "/requests/" + name))
        }
        let synced = group.cli(["sync", "--vault", a])
        try expectSuccess(synced)
        #expect(synced.stderr.contains("MAC does not hold"), "\(synced.stderr)")
        let members = group.cli(["sync", "members", "--vault", a])
        #expect(
            members.stdout.split(separator: "\n").count == 1 && !members.stdout.contains("host"), "\(members.stdout)")
    }

    @Test(
        "a request made before the invitation expired but seen after it is not admitted; both files leave the repository"
    )
    func expiredInvitationAdmitsNobody() throws {
        let group = try SyncGroup()
        let a = try group.makeVault("a"), b = try group.makeVault("b")
        try group.found(a)
        let invite = group.cli(["sync", "invite", "--vault", a, "--expires", "3"])
        try expectSuccess(invite)
        try expectSuccess(
            group.cli(
                ["sync", "join", group.remote, "--vault", b, "--code-stdin", "--name", "b"], stdin: invite.stdout))
        Thread.sleep(forTimeInterval: 3.5)
        let synced = group.cli(["sync", "--vault", a])
        try expectSuccess(synced)
        #expect(!synced.stdout.contains("admitted"), "\(synced.stdout)")
        #expect(group.cli(["sync", "members", "--vault", a]).stdout.split(separator: "\n").count == 1)
        try group.sync(a)  // the request came in with the merge, after the invitation went: this sync removes it
        let work = try group.hostCheckout("after-expiry")
        for directory in ["invitations", "requests"] {
            #expect(
                ((try? FileManager.default.contentsOfDirectory(atPath: work + "/" + directory)) ?? []).isEmpty,
                "\(directory) is emptied")
        }
        let waiting = group.cli(["sync", "--vault", b])
        #expect(waiting.stdout.contains("waits for admission"), "\(waiting.stdout)")
    }

    @Test("an invitation lives at most 7 days; the last member can neither leave nor be removed")
    func boundsOfTheCircle() throws {
        let group = try SyncGroup()
        let a = try group.makeVault("a")
        try group.found(a)
        let long = group.cli(["sync", "invite", "--vault", a, "--expires", String(8 * 86400)])
        #expect(long.status != 0 && long.stderr.contains("7 days"), "\(long.stderr)")
        let leave = group.cli(["sync", "leave", "--vault", a])
        #expect(leave.status != 0 && leave.stderr.contains("last member"), "\(leave.stderr)")
        #expect(FileManager.default.fileExists(atPath: a + "/sync/repo"), "a refused leave keeps the setup")
        #expect(group.cli(["sync", "remove", "a", "--vault", a]).status != 0)
    }

    @Test("a host that serves the joiner another circle's membership log: join refused, the vault left as it was")
    func anotherCirclesLogRefused() throws {
        let group = try SyncGroup()
        let a = try group.makeVault("a"), b = try group.makeVault("b")
        try group.found(a)
        let invite = group.cli(["sync", "invite", "--vault", a])
        try expectSuccess(invite)
        // Another circle, founded by the host on a repository of its own.
        let other = try SyncGroup()
        let h = try other.makeVault("h")
        try other.found(h)
        let theirs = try other.hostCheckout("theirs")
        try group.pushAsHost("swap-log") { work in
            for file in ["members/log", "members/keyring"] {
                try Data(contentsOf: URL(fileURLWithPath: theirs + "/" + file)).write(
                    to: URL(fileURLWithPath: work + "/" + file))
            }
        }
        let joined = group.cli(
            ["sync", "join", group.remote, "--vault", b, "--code-stdin", "--name", "b"], stdin: invite.stdout)
        #expect(joined.status != 0 && joined.stderr.contains("not the one the invitation names"), "\(joined.stderr)")
        SyncSetupTests.expectNoSyncState(b)
    }
}
