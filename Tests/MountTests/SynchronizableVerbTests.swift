import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// docs/security-verbs.md: the `security` verbs see every item, synchronizable ones included (macOS's
/// kSecAttrSynchronizableAny).
@Suite struct SynchronizableVerbTests {
    let v = UnmountedVault("syncverbs")

    @Test func synchronizableItemsAreFoundDumpedAndDeleted() throws {
        defer { v.remove() }
        let certificate = try TestCertificate(commonName: "Synced Certificate")
        try v.withConnection { connection in
            _ = try connection.add([
                "class": "genp", "svce": "synced", "acct": "alice", "sync": 1,
                "v_Data": .data(Data("cloud-secret".utf8)),
            ])
            _ = try connection.add([
                "class": "inet", "srvr": "sync.example.com", "acct": "bob", "sync": 1,
                "v_Data": .data(Data("cloud-pw".utf8)),
            ])
            _ = try connection.add(["class": "cert", "sync": 1, "v_Data": .data(certificate.der)])
        }
        #expect(v.security(["find-generic-password", "-s", "synced", "-w"]).stdout == "cloud-secret\n")
        #expect(v.security(["find-internet-password", "-s", "sync.example.com", "-w"]).stdout == "cloud-pw\n")
        let dump = v.security(["dump-keychain"])
        #expect(
            dump.succeeded && dump.stdout.contains("\"svce\"<blob>=\"synced\"")
                && dump.stdout.contains("\"srvr\"<blob>=\"sync.example.com\""))
        #expect(v.security(["find-certificate", "-c", "Synced"]).succeeded)
        #expect(v.security(["delete-generic-password", "-s", "synced"]).succeeded)
        #expect(v.security(["delete-internet-password", "-s", "sync.example.com"]).succeeded)
        #expect(v.security(["find-generic-password", "-s", "synced"]).status == 44, "deleted")
        #expect(v.security(["find-internet-password", "-s", "sync.example.com"]).status == 44, "deleted")
    }
}
