import Foundation
import KeychainClient
import KeychainEngine
import KeychainModel
import Testing
import TestSupport

/// A connection that has been calling in-process (no daemon) asks the socket only when the vault's lock
/// is taken (issue 27): a daemon that starts later must still get its next call, and its lock state rule.
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
}
