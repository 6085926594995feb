import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSStore
import Testing

/// The item database's WAL is checkpointed from a connection of its own, off the request path:
/// background checkpoints run once a thousand frames wait, not after every commit; the WAL stays bounded
/// under writes back to back; every commit reads back, also from the vault opened again.
@Suite struct WALCheckpointTests {
    @Test func backgroundCheckpointsKeepTheWALBoundedAndEveryCommitReadsBack() throws {
        let v = try TestVault()
        let value = Data(repeating: 7, count: 64 * 1024)  // about seventeen frames a commit
        let checkpointer = v.keychain.store.checkpointer
        let commits = 800  // ~14,000 frames: past the inline limit more than twice, so the WAL must restart
        for i in 0..<commits { _ = try v.add(genp("wal", "a\(i)", ["v_Data": .data(value)])) }
        let deadline = Date().addingTimeInterval(20)
        while checkpointer.completed.load(ordering: .relaxed) == 0 && Date() < deadline { usleep(10_000) }
        let background = checkpointer.completed.load(ordering: .relaxed)
        #expect(background > 0, "a checkpoint ran in the background")
        #expect(background < commits / 20, "one per thousand frames or so, not one per commit: \(background)")
        _ = try v.add(genp("wal", "last", ["v_Data": .data(value)]))
        var st = stat()
        #expect(stat(v.directory + "/items.sqlite-wal", &st) == 0)
        // The inline limit, plus what commits wrote while a background pass held the checkpoint lock (the
        // commit's own attempt then copies nothing): well under the ~56 MB of a WAL that never restarted.
        let bound = 2 * WALCheckpointer.inlineLimit * (4096 + 24)
        #expect(Int(st.st_size) < bound, "the WAL stays bounded: \(st.st_size) bytes")
        for i in [0, commits / 2, commits - 1] {
            #expect(try v.copy(genp("wal", "a\(i)", ["r_Data": true]))?.dataValue == value)
        }
        let reopened = try Keychain(vault: v.keychain.vault)
        #expect(try reopened.copyMatching(genp("wal", "last", ["r_Data": true]), caller: v.caller)?.dataValue == value)
    }
}
