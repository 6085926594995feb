import Foundation
import Synchronization
import Testing
import KeychainFSTestSupport

/// Two `keychainfs mount` of different vaults on one empty mount point at once: one mounts, the other is
/// refused as a second mount made after it is; they never stack (docs/filesystem.md, "Mount behaviour").
@Suite(.serialized) struct MountPointRaceTests {
    @Test func concurrentMountsOnOneMountPointNeverStack() throws {
        let a = try MountedVault(), b = try MountedVault()
        defer {
            a.close()
            b.close()
        }
        a.unmount()
        b.unmount()
        let shared = a.root + "/shared"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        defer { Self.clear(shared, daemonsOf: [a, b]) }
        let vaults = [a.vault, b.vault]
        for round in 1...4 {
            let results = Mutex<[CommandResult]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let result = Command.run(MountedVault.binary, ["mount", vaults[index], shared], timeout: 30)
                results.withLock { $0.append(result) }
            }
            let all = results.withLock { $0 }
            let mounts = MountedVault.mountTable().split(separator: "\n").filter { $0.contains(" \(shared) ") }
            #expect(mounts.count == 1, "round \(round): \(mounts)")
            #expect(all.filter(\.succeeded).count == 1, "round \(round): \(all.map { "\($0.status) \($0.stderr)" })")
            let refused = all.first { !$0.succeeded }
            #expect(
                refused?.stderr.contains("already a keychainfs mount") == true
                    || refused?.stderr.contains("being mounted by another") == true,
                "\(refused?.stderr ?? "")")
            Self.clear(shared, daemonsOf: [a, b])
        }
    }

    /// Unmounts everything at `mountpoint` and waits (with a deadline) until the vaults' daemons are gone.
    private static func clear(_ mountpoint: String, daemonsOf vaults: [MountedVault]) {
        let pids = vaults.compactMap(\.daemonPID)
        for _ in 0..<4 where MountedVault.mountTable().contains(" \(mountpoint) ") {
            _ = Command.run(MountedVault.binary, ["unmount", mountpoint], timeout: 15)
            if MountedVault.mountTable().contains(" \(mountpoint) ") {
                umount2(mountpoint, Int32(MNT_DETACH))
            }
        }
        let deadline = Date().addingTimeInterval(10)
        while pids.contains(where: { kill($0, 0) == 0 }), Date() < deadline { usleep(20_000) }
        for pid in pids where kill(pid, 0) == 0 { kill(pid, SIGKILL) }
    }
}
