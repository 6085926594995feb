import Foundation
import Testing
import KeychainFSTestSupport

/// Writers in turn leave the WAL bounded (10,000 `add-generic-password` runs with no daemon
/// left a 222 MB `items.sqlite-wal` beside an 8.3 MB database). docs/filesystem.md states the bound: the
/// inline limit, 4,000 frames of a 4 KiB page and its 24-byte header.
@Suite struct WriterProcessesWALTests {
    static let bound = 4000 * (4096 + 24)

    @Test func shortLivedWritersInTurnLeaveTheWALUnderItsBound() throws {
        let root = TestDirectory.root + "/kcfs-wal-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let vault = root + "/vault"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let environment = ["XDG_STATE_HOME": root + "/state"]
        try expectSuccess(
            Command.run(MountedVault.binary, ["init", vault, "--test-device"], environment: environment, timeout: 30))
        // About thirty frames an add: 200 processes write 6,000 frames, half as much again as the bound.
        let value = String(repeating: "w", count: 120_000)
        var largest = 0
        for i in 0..<200 {
            let added = Command.run(
                MountedVault.binary, ["add-generic-password", "-s", "wal", "-a", "a\(i)", "-w", value, vault],
                environment: environment, timeout: 30)
            try #require(added.status == 0, "add \(i): \(added.stderr)")
            var st = stat()
            if stat(vault + "/items.sqlite-wal", &st) == 0 { largest = max(largest, Int(st.st_size)) }
        }
        #expect(largest < Self.bound, "the WAL stayed under \(Self.bound) bytes: at most \(largest)")
        let found = Command.run(
            MountedVault.binary, ["find-generic-password", "-s", "wal", "-a", "a199", "-w", vault],
            environment: environment, timeout: 30)
        #expect(found.stdout == value + "\n", "the last add reads back")
    }
}
