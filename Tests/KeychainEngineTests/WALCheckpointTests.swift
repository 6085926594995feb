import Foundation
import KeychainEngine
import KeychainModel
import KeychainStore
import Testing

/// The item database's WAL is checkpointed from a connection of its own, off the request path (issue 27):
/// a background checkpoint runs once the WAL passes its threshold, the WAL stays bounded, and every commit
/// reads back, also from the vault opened again.
@Suite struct WALCheckpointTests {
    @Test func aBackgroundCheckpointRunsAndEveryCommitReadsBack() throws {
        let v = try TestVault()
        let value = Data(repeating: 7, count: 64 * 1024)  // about sixteen pages a commit
        let checkpointer = v.keychain.store.checkpointer
        for i in 0..<200 { _ = try v.add(genp("wal", "a\(i)", ["v_Data": .data(value)])) }
        let deadline = Date().addingTimeInterval(20)
        while checkpointer.completed.load(ordering: .relaxed) == 0 && Date() < deadline { usleep(10_000) }
        #expect(checkpointer.completed.load(ordering: .relaxed) > 0, "a checkpoint ran in the background")
        // 200 commits of ~16 pages wrote ~3,200 pages: checkpointed, the WAL restarts from its beginning.
        _ = try v.add(genp("wal", "last", ["v_Data": .data(value)]))
        var st = stat()
        #expect(stat(v.directory + "/items.sqlite-wal", &st) == 0)
        #expect(Int(st.st_size) < Int(WALCheckpointer.inlineLimit) * 4096, "the WAL stays bounded: \(st.st_size) bytes")
        for i in [0, 99, 199] {
            #expect(try v.copy(genp("wal", "a\(i)", ["r_Data": true]))?.dataValue == value)
        }
        let reopened = try Keychain(vault: v.keychain.vault)
        #expect(try reopened.copyMatching(genp("wal", "last", ["r_Data": true]), caller: v.caller)?.dataValue == value)
    }
}
