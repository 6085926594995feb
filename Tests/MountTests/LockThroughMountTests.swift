import Foundation
import Testing
import KeychainFSTestSupport

/// The device lock seen through `cat`: docs/spec.md §3 through the mount.
@Suite struct LockThroughMountTests {
    let m: MountedVault
    init() throws { m = try MountedVault() }

    /// Makes genp/svc/<account> with a secret and accessibility.
    func item(_ account: String, pdmn: String? = nil, secret: String? = nil) throws {
        let dir = m.path("genp/svc/\(account)")
        #expect(FS.mkdir(m.path("genp/svc")) == 0 || FS.mkdir(m.path("genp/svc")) == EEXIST)
        #expect(FS.mkdir(dir) == 0)
        if let pdmn { #expect(FS.setxattr(dir, "user.kSecAttrAccessible", pdmn) == 0) }
        #expect(FS.write(dir + "/value", secret ?? "secret-\(account)") == 0)
    }

    func read(_ account: String) -> Int32 {
        switch FS.read(m.path("genp/svc/\(account)/value")) {
        case .success(let d): return d == Data("secret-\(account)".utf8) ? 0 : -1
        case .failure(let e): return e.code
        }
    }

    @Test func whenUnlockedItemFailsRightAfterLockEvenOnAnOpenDescriptor() throws {
        try item("ak")
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        #expect(read("ak") == 0)
        let fd = open(m.path("genp/svc/ak/value"), O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        try expectSuccess(m.device("lock"))
        #expect(read("ak") == EACCES, "the first read after 'device lock' returns fails")
        var byte: UInt8 = 0
        #expect(Glibc.read(fd, &byte, 1) < 0 && errno == EACCES, "a descriptor opened before the lock reads nothing")
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(read("ak") == 0)
        #expect(lseek(fd, 0, SEEK_SET) == 0)
        #expect(FS.readAll(fd) == .success(Data("secret-ak".utf8)))
    }

    @Test func afterFirstUnlockAndAlwaysClasses() throws {
        try item("ck", pdmn: "kSecAttrAccessibleAfterFirstUnlock")
        try item("dk", pdmn: "dk")
        try item("cku", pdmn: "cku")
        #expect(FS.xattrText(m.path("genp/svc/ck"), "user.kSecAttrAccessible") == "kSecAttrAccessibleAfterFirstUnlock")
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        #expect(read("ck") == 0 && read("cku") == 0 && read("dk") == 0, "class C and D work while locked")
        try expectSuccess(m.device("reboot"))
        #expect(m.device("status").stdout.contains("state: before-first-unlock"))
        #expect(read("ck") == EACCES && read("cku") == EACCES, "class C is unavailable until the first unlock")
        #expect(read("dk") == 0, "class D always works")
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(read("ck") == 0 && read("cku") == 0)
    }

    @Test func listingAServiceThatHoldsAWhenUnlockedItemFailsWhileLocked() throws {
        try item("ak")
        try item("dk", pdmn: "dk")
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        // Listed first, so the listing is kept (PathCache): the lock must take it away.
        #expect(FS.list(m.path("genp/svc")) == .success(["ak", "dk"]))
        try expectSuccess(m.device("lock"))
        #expect(FS.list(m.path("genp/svc")).errno == EACCES)
        #expect(FS.getxattr(m.path("genp/svc/dk"), "user.kSecAttrAccount") == .success(Data("dk".utf8)))
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(FS.list(m.path("genp/svc")) == .success(["ak", "dk"]))
    }

    /// A kept listing goes with every change, whichever way it came (the CLI over the control socket here).
    @Test func aKeptListingFollowsChangesMadeElsewhere() throws {
        try item("ak")
        #expect(FS.list(m.path("genp/svc")) == .success(["ak"]))
        #expect(FS.list(m.path("genp/svc")) == .success(["ak"]))
        try expectSuccess(m.cli(["add-generic-password", "-s", "svc", "-a", "new", "-w", "x", m.vault]))
        #expect(FS.list(m.path("genp/svc")) == .success(["ak", "new"]))
        try expectSuccess(m.cli(["delete-generic-password", "-s", "svc", "-a", "ak", m.vault]))
        #expect(FS.list(m.path("genp/svc")) == .success(["new"]))
    }

    @Test func aWrongPasscodeIsRefusedAndCounted() throws {
        try item("ak")
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        let wrong = m.device("unlock", passcode: "9999")
        #expect(!wrong.succeeded && wrong.stderr.contains("errSecAuthFailed"))
        #expect(m.device("status").stdout.contains("failed attempts: 1"))
        #expect(read("ak") == EACCES)
        #expect(!m.device("unlock").succeeded, "no terminal and no --passcode-stdin: refused, never read from argv")
    }

    @Test func removingThePasscodeDeletesWhenPasscodeSetItems() throws {
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try item("akpu", pdmn: "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly")
        try item("ak")
        #expect(read("akpu") == 0)
        let removed = m.device("passcode", "remove", passcode: "1234")
        #expect(removed.succeeded && removed.stdout.contains("1 WhenPasscodeSet item(s) deleted"))
        #expect(read("akpu") == ENOENT)
        #expect(read("ak") == 0)
        try expectSuccess(m.device("lock"))
        #expect(read("ak") == 0, "without a passcode the device never locks")
    }

    @Test func whenPasscodeSetNeedsAPasscode() throws {
        #expect(FS.mkdir(m.path("genp/svc")) == 0)
        #expect(FS.mkdir(m.path("genp/svc/p")) == 0)
        #expect(FS.setxattr(m.path("genp/svc/p"), "user.kSecAttrAccessible", "akpu") == EPERM, "errSecAuthFailed")
        #expect(FS.xattrText(m.path("genp/svc/p"), "user.kSecAttrAccessible") == "kSecAttrAccessibleWhenUnlocked")
    }
}
