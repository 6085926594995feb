import Foundation
import Testing
import KeychainFSTestSupport

/// Deleting a WhenUnlocked item while locked succeeds (docs/spec.md §2: Delete needs no key), through rmdir, rm -r
/// and `security delete-generic-password`; its attributes and value stay unreadable.
@Suite struct LockedDeleteTests {
    let m: MountedVault
    init() throws { m = try MountedVault() }

    func lockedItems(_ accounts: [String]) throws {
        for account in accounts {
            let dir = m.path("genp/svc/\(account)")
            _ = FS.mkdir(m.path("genp/svc"))
            #expect(FS.mkdir(dir) == 0)
            #expect(FS.write(dir + "/value", "secret-\(account)") == 0)
        }
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
    }

    @Test func rmdirAndRecursiveRemoveDeleteLockedItems() throws {
        try lockedItems(["one", "two", "kept"])
        #expect(FS.getxattr(m.path("genp/svc/one"), "user.kSecAttrAccount").errno == EACCES, "attributes stay sealed")
        #expect(FS.read(m.path("genp/svc/one/value")).errno == EACCES)
        #expect(FS.rename(m.path("genp/svc/one"), m.path("genp/svc/moved")) == EACCES, "an update needs the key")
        #expect(FS.rmdir(m.path("genp/svc/one")) == 0)
        let removed = Command.run("/bin/rm", ["-r", m.path("genp/svc/two")])
        #expect(removed.succeeded, "\(removed.stderr)")
        #expect(FS.rmdir(m.path("genp/svc/absent")) == ENOENT)
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(FS.list(m.path("genp/svc")) == .success(["kept"]))
        #expect(FS.text(m.path("genp/svc/kept/value")) == "secret-kept")
    }

    @Test func theSecurityVerbDeletesALockedItem() throws {
        try lockedItems(["verb"])
        let deleted = m.cli(["delete-generic-password", "-s", "svc", "-a", "verb", m.vault])
        #expect(deleted.succeeded && deleted.stdout.hasSuffix("password has been deleted.\n"), "\(deleted.stderr)")
        #expect(m.cli(["delete-generic-password", "-s", "svc", "-a", "verb", m.vault]).status == 44)
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(FS.read(m.path("genp/svc/verb/value")).errno == ENOENT)
    }
}
