import Foundation
import Synchronization
import Testing
import KeychainFSTestSupport

/// Several processes using one vault without a daemon (each call opens it in-process and holds its lock for
/// that call): their calls wait for each other instead of failing with errSecNotAvailable.
@Suite struct InProcessSharingTests {
    @Test func concurrentInProcessCallsWaitForEachOther() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("kcfs-shared-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(
            atPath: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let vault = root + "/vault"
        let environment = ["KEYCHAIN_VAULT": vault, "XDG_STATE_HOME": root + "/state", "KEYCHAIN_ACCESS_GROUPS": ""]
        let binary = MountedVault.binary
        #expect(Command.run(binary, ["init", vault, "--test-device"], environment: environment).succeeded)
        // Six processes, each adding and reading its own items in a loop, all at once.
        let script = """
            for i in $(seq 1 15); do
              "$0" add-generic-password -s shared -a "p$1-$i" -w "s$i" >/dev/null || { echo "add $i failed" >&2; exit 1; }
              [ "$("$0" find-generic-password -s shared -a "p$1-$i" -w)" = "s$i" ] || { echo "find $i failed" >&2; exit 1; }
            done
            """
        let results = Mutex<[CommandResult]>([])
        let group = DispatchGroup()
        for worker in 0..<6 {
            group.enter()
            Thread.detachNewThread {
                let result = Command.run(
                    "/bin/bash", ["-c", script, binary, "\(worker)"], environment: environment, timeout: 120)
                results.withLock { $0.append(result) }
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 150) == .success, "every worker finished")
        let finished = results.withLock { $0 }
        #expect(finished.count == 6)
        for result in finished { #expect(result.succeeded, "\(result.stderr)") }
    }
}
