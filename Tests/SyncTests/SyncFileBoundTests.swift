import Foundation
import KeychainFSSync
import Testing
import KeychainFSTestSupport

/// A host's file is read by its size first: one beyond its bound is refused, named, before a byte of it
/// is read (a host's 2 GiB file took the daemon to 1.5 GB).
@Suite("sync bounds every file it reads from the repository", .serialized)
struct SyncFileBoundTests {
    @Test("an item file beyond the bound (sparse) is skipped with its name and the bound; the item keeps its value")
    func oversizedItemFileRefused() throws {
        let group = try SyncGroup()
        let v1 = try group.makeVault("v1"), v2 = try group.makeVault("v2")
        try group.add(v1, service: "svc-big", account: "acct-big", secret: "secret-big", label: "label-big")
        try expectSuccess(group.cli(["sync", "init", group.remote, "--vault", v1]))
        try group.join(v2, invitedBy: v1)
        var names: [String] = []
        try group.pushAsHost("oversized") { work in
            names = try FileManager.default.contentsOfDirectory(atPath: work + "/items")
            for name in names {
                // Sparse: its size is past the bound while it takes no room.
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: work + "/items/" + name))
                try handle.truncate(atOffset: UInt64(RepositoryFile.maxItemBytes + 1))
                try handle.close()
            }
        }
        #expect(!names.isEmpty)
        let started = Date()
        let result = group.cli(["sync", "--vault", v2])
        try expectSuccess(result)
        for name in names {
            #expect(
                result.stderr.contains("skipped items/\(name): the repository's file ")
                    && result.stderr.contains(
                        "items/\(name) is \(RepositoryFile.maxItemBytes + 1) bytes; at most \(RepositoryFile.maxItemBytes) bytes are read"
                    ), "\(result.stderr)")
        }
        #expect(Date().timeIntervalSince(started) < 60, "a hang guard only")
        #expect(try group.secret(v2, service: "svc-big", account: "acct-big") == "secret-big")
    }
}
