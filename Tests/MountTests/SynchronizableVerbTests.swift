import Foundation
import KeychainClient
import KeychainEngine
import Testing
import TestSupport

/// Issue 22 (8): the `security` verbs see every item, synchronizable ones included (macOS's
/// kSecAttrSynchronizableAny).
@Suite struct SynchronizableVerbTests {
    let root = TestDirectory.root + "/kcfs-syncverbs-" + UUID().uuidString.prefix(8)
    var vault: String { root + "/vault" }

    func security(_ arguments: [String]) -> CommandResult {
        Command.run(MountedVault.binary, arguments, environment: ["KEYCHAIN_VAULT": vault, "KEYCHAIN_ACCESS_GROUPS": ""])
    }

    /// A connection in this process, closed when `body` returns (the CLI opens the vault next).
    func withConnection(_ body: (KeychainConnection) throws -> Void) throws {
        try body(try KeychainConnection(vault: Vault(directory: vault), caller: Caller(), createIfMissing: true))
    }

    @Test func synchronizableItemsAreFoundDumpedAndDeleted() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let certificate = try TestCertificate(commonName: "Synced Certificate")
        try withConnection { connection in
            _ = try connection.add(["class": "genp", "svce": "synced", "acct": "alice", "sync": 1, "v_Data": .data(Data("cloud-secret".utf8))])
            _ = try connection.add(["class": "inet", "srvr": "sync.example.com", "acct": "bob", "sync": 1, "v_Data": .data(Data("cloud-pw".utf8))])
            _ = try connection.add(["class": "cert", "sync": 1, "v_Data": .data(certificate.der)])
        }
        #expect(security(["find-generic-password", "-s", "synced", "-w"]).stdout == "cloud-secret\n")
        #expect(security(["find-internet-password", "-s", "sync.example.com", "-w"]).stdout == "cloud-pw\n")
        let dump = security(["dump-keychain"])
        #expect(dump.succeeded && dump.stdout.contains("\"svce\"<blob>=\"synced\"") && dump.stdout.contains("\"srvr\"<blob>=\"sync.example.com\""))
        #expect(security(["find-certificate", "-c", "Synced"]).succeeded)
        #expect(security(["delete-generic-password", "-s", "synced"]).succeeded)
        #expect(security(["delete-internet-password", "-s", "sync.example.com"]).succeeded)
        #expect(security(["find-generic-password", "-s", "synced"]).status == 44, "deleted")
        #expect(security(["find-internet-password", "-s", "sync.example.com"]).status == 44, "deleted")
    }
}
