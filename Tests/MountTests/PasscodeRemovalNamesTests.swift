import Foundation
import Testing
import KeychainFSTestSupport

/// `device passcode remove` deletes the WhenPasscodeSetThisDeviceOnly items, and the mount forgets their
/// names as it does after any delete: the same name added again (through the CLI or the API) is there at
/// once, not ENOENT until the kernel's dentry cache is dropped.
@Suite struct PasscodeRemovalNamesTests {
    @Test func aNameDeletedByThePasscodesRemovalCanBeAddedAgainAndOpened() throws {
        let m = try MountedVault()
        defer { m.close() }
        try expectSuccess(m.device("passcode", "set", passcode: "1111"))
        for account in ["by-cli", "by-api"] {
            try m.addItem(account: account, secret: "old-\(account)", accessible: "akpu")
        }
        // The kernel now holds entries of both names (looked up and opened).
        for account in ["by-cli", "by-api"] {
            #expect(FS.text(m.path("genp/svc/\(account)/value")) == "old-\(account)")
        }
        try expectSuccess(m.device("passcode", "remove", passcode: "1111"))
        try expectSuccess(
            Command.run(
                MountedVault.binary, ["add-generic-password", "-s", "svc", "-a", "by-cli", "-w", "new-by-cli"],
                environment: ["KEYCHAIN_VAULT": m.vault]))
        try m.addItem(account: "by-api", secret: "new-by-api", accessible: "ak")
        #expect(try FS.list(m.path("genp/svc")).get().sorted() == ["by-api", "by-cli"])
        for account in ["by-cli", "by-api"] {
            #expect(FS.read(m.path("genp/svc/\(account)/value")) == .success(Data("new-\(account)".utf8)))
        }
    }
}
