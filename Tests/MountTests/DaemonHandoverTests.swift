import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// A connection that has been calling in-process (no daemon) asks the socket only when the vault's lock
/// is taken: a daemon that starts later must still get its next call, and its lock state rule.
@Suite struct DaemonHandoverTests {
    static let item: KeychainDictionary = ["class": "genp", "svce": "handover", "acct": "a"]

    static func status(_ body: () throws -> Void) -> OSStatus {
        do { try body(); return SecStatus.success } catch let error as KeychainError { return error.status } catch {
            return 1
        }
    }

    @Test func aDaemonStartedAfterInProcessCallsGetsTheNextCall() throws {
        let m = try MountedVault()
        defer { m.close() }
        m.unmount()
        let connection = try KeychainConnection(vault: Vault(directory: m.vault), caller: Caller())
        #expect(!connection.viaDaemon)
        _ = try connection.add(Self.item.merging(["v_Data": .data(Data("s".utf8))]) { $1 })
        #expect(try connection.copyMatching(Self.item.merging(["r_Data": true]) { $1 })?.dataValue == Data("s".utf8))
        #expect(!connection.viaDaemon, "no daemon: the calls ran in this process")

        try expectSuccess(m.remount())
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        // The daemon's device is locked: its answer. In-process, the vault's lock is held by the daemon.
        let locked = Self.status { _ = try connection.copyMatching(Self.item.merging(["r_Data": true]) { $1 }) }
        #expect(locked == SecStatus.interactionNotAllowed, "\(locked)")
        #expect(connection.viaDaemon, "the call went to the daemon that started after the connection")
        try expectSuccess(m.device("unlock", passcode: "1234"))
        #expect(try connection.copyMatching(Self.item.merging(["r_Data": true]) { $1 })?.dataValue == Data("s".utf8))
    }

    /// The in-process lock file stays open between calls; the vault is free between them, and a
    /// vault removed and made again at the same path is opened again, not served by the engine kept for
    /// the old one (whose lock file would keep no daemon out).
    @Test func betweenInProcessCallsTheVaultIsFreeAndAVaultMadeAgainIsOpenedAgain() throws {
        let m = try MountedVault()
        defer { m.close() }
        m.unmount()
        let vault = Vault(directory: m.vault)
        let connection = try KeychainConnection(vault: vault, caller: Caller())
        _ = try connection.add(Self.item.merging(["v_Data": .data(Data("old".utf8))]) { $1 })
        #expect(try connection.copyMatching(Self.item.merging(["r_Data": true]) { $1 })?.dataValue == Data("old".utf8))
        // Another holder between two calls: free to take, and what it changed is seen.
        do {
            let lock = try VaultLock(vault)
            try Keychain(vault: vault).update(Self.item, ["v_Data": .data(Data("other".utf8))], caller: Caller())
            withExtendedLifetime(lock) {}
        }
        #expect(
            try connection.copyMatching(Self.item.merging(["r_Data": true]) { $1 })?.dataValue == Data("other".utf8))
        // The vault made again at its path: the connection's next call opens the new one.
        try FileManager.default.removeItem(atPath: m.vault)
        try expectSuccess(
            Command.run(
                MountedVault.binary, ["init", m.vault, "--test-device"],
                environment: ["XDG_STATE_HOME": m.root + "/state-2"], timeout: 30))
        let status = Self.status { _ = try connection.copyMatching(Self.item.merging(["r_Data": true]) { $1 }) }
        #expect(status == SecStatus.itemNotFound, "the new vault has no items: \(status)")
        #expect(!connection.viaDaemon)
    }
}
