import Foundation
import Testing
import KeychainFSTestSupport

/// The same client code in another process, against a mounted vault whose device another process
/// locks: WhenUnlocked items give errSecInteractionNotAllowed, AfterFirstUnlock items still read.
@Suite struct DaemonLockTests {
    @Test func deviceLockReachesSecItemCallsThroughTheDaemon() throws {
        let m = try MountedVault()
        let probe = MountedVault.builtProgram("security-probe")
        func run(_ arguments: String...) -> String {
            Command.run(probe, arguments, environment: ["KEYCHAIN_VAULT": m.vault]).stdout.trimmingCharacters(
                in: .whitespacesAndNewlines)
        }
        #expect(run("save", "app", "session", "s-token", "ak") == "saved")
        #expect(run("save", "app", "refresh", "r-token", "ck") == "saved")
        #expect(FS_text(m.path("genp/app/session/value")) == "s-token", "the daemon stored it: it is in the mount")
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        #expect(run("load", "app", "session") == "error -25308")
        #expect(run("load", "app", "refresh") == "value r-token")
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(run("load", "app", "session") == "value s-token")
    }
}

private func FS_text(_ path: String) -> String? {
    (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) }
}
