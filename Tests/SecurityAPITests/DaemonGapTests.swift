import Foundation
import Testing
import KeychainFSTestSupport

/// A client process that has used a daemon keeps using one through a restart (the vault
/// is never captured in-process), and an in-process client never keeps the vault from a daemon.
@Suite struct DaemonGapTests {
    /// `security-probe watch` in the background: one load per 100 ms.
    final class Watcher {
        let process = Process()
        let output = Pipe()
        init(vault: String, count: Int) throws {
            process.executableURL = URL(fileURLWithPath: MountedVault.builtProgram("security-probe"))
            process.arguments = ["watch", "app", "session", String(count), "100"]
            process.environment = ProcessInfo.processInfo.environment.merging(["KEYCHAIN_VAULT": vault]) { $1 }
            process.standardOutput = output
            try process.run()
        }
        /// Waits (bounded) for the probe to finish and returns its lines.
        func lines(timeout: TimeInterval = 60) -> [String] {
            let deadline = Date().addingTimeInterval(timeout)
            while process.isRunning && Date() < deadline { usleep(50_000) }
            if process.isRunning { process.terminate() }
            return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(
                separator: "\n"
            ).map(String.init)
        }
    }

    @Test func aClientThatUsedADaemonWaitsForItAndNeverCapturesTheVault() throws {
        let m = try MountedVault()
        #expect(
            Command.run(
                MountedVault.builtProgram("security-probe"), ["save", "app", "session", "s-token", "ak"],
                environment: ["KEYCHAIN_VAULT": m.vault]
            ).stdout.hasPrefix("saved"))
        let watcher = try Watcher(vault: m.vault, count: 200)
        usleep(700_000)
        m.unmount()
        sleep(4)  // longer than the client's grace: it reports errSecNotAvailable, it does not open the vault
        let again = m.cli(["mount", m.vault, m.mount])
        #expect(again.succeeded, "the vault was not captured by the client: \(again.stderr)")
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        let lines = watcher.lines()
        #expect(lines.first == "value s-token")
        #expect(lines.contains("error -25291"), "the gap is reported as errSecNotAvailable")
        #expect(
            lines.last == "error -25308", "the remounted daemon's lock is in force for the client: \(lines.suffix(3))")
        #expect(
            Set(lines).isSubset(of: ["value s-token", "error -25291", "error -25308"]),
            "nothing else, ever: \(Set(lines))")
    }

    @Test func anInProcessClientNeverKeepsTheVaultFromADaemon() throws {
        let m = try MountedVault()
        m.unmount()
        #expect(
            Command.run(
                MountedVault.builtProgram("security-probe"), ["save", "app", "session", "s-token", "ak"],
                environment: ["KEYCHAIN_VAULT": m.vault]
            ).stdout.hasPrefix("saved"))
        let watcher = try Watcher(vault: m.vault, count: 150)
        usleep(800_000)
        let mounted = m.cli(["mount", m.vault, m.mount])
        #expect(mounted.succeeded, "mounting while a client reads in-process: \(mounted.stderr)")
        try expectSuccess(m.device("passcode", "set", passcode: "1234"))
        try expectSuccess(m.device("lock"))
        let lines = watcher.lines()
        #expect(lines.first == "value s-token")
        #expect(lines.last == "error -25308", "once a daemon serves, the client goes through it: \(lines.suffix(3))")
        #expect(!lines.contains { $0.hasPrefix("error") && $0 != "error -25308" }, "\(lines)")
    }
}
