import Foundation
import Testing
import KeychainFSTestSupport

/// dump-keychain, lock-keychain and unlock-keychain (docs/spec.md §13) as macOS's `security` prints and exits.
@Suite struct KeychainVerbTests {
    @Test func dumpLockAndUnlock() throws {
        let m = try MountedVault()
        let environment = ["KEYCHAIN_VAULT": m.vault, "KEYCHAIN_ACCESS_GROUPS": ""]
        func security(_ arguments: [String], stdin: String? = nil) -> CommandResult {
            Command.run(MountedVault.binary, arguments, stdin: stdin, environment: environment)
        }
        try expectSuccess(security(["add-generic-password", "-s", "svc", "-a", "acct", "-w", "pw-generic"]))
        try expectSuccess(security(["add-internet-password", "-s", "example.com", "-a", "bob", "-w", "pw-internet"]))
        let dump = security(["dump-keychain"])
        #expect(dump.succeeded && dump.stdout.contains("class: \"genp\"") && dump.stdout.contains("class: \"inet\""))
        #expect(
            dump.stdout.contains("\"srvr\"<blob>=\"example.com\"") && !dump.stdout.contains("pw-"), "no data without -d"
        )
        let withData = security(["dump-keychain", "-d"])
        #expect(withData.stdout.contains("data:\n\"pw-generic\"") && withData.stdout.contains("data:\n\"pw-internet\""))
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(security(["lock-keychain"]))
        #expect(FS.text(m.path("genp/svc/acct/value")) == nil, "locked through the mount too")
        #expect(security(["dump-keychain"]).status == 36)
        let wrong = security(["unlock-keychain"], stdin: "9999\n")
        #expect(wrong.status == 51 && wrong.stderr.contains("SecKeychainUnlock"), "errSecAuthFailed: exit 51")
        #expect(security(["unlock-keychain", "-p", "1234"]).status != 0, "never a passcode in argv")
        try expectSuccess(security(["unlock-keychain"], stdin: "1234\n"))
        #expect(FS.text(m.path("genp/svc/acct/value")) == "pw-generic")
    }
}
