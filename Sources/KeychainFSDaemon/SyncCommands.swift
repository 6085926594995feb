import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSSync
import KeychainFSModel
import Logging

/// The daemon's sync: its own engine, git run from here, merges asked for by the merge driver.
struct DaemonSyncAccess: SyncKeychainAccess {
    let keychain: Keychain
    func with<T>(_ body: (Keychain) throws(KeychainError) -> T) throws(KeychainError) -> T { try body(keychain) }
}

/// Answers the `sync.*` control commands. One sync at a time per daemon.
struct SyncCommands: Sendable {
    let keychain: Keychain
    private static let gate = NSLock()

    var session: SyncSession {
        SyncSession(vault: keychain.vault, access: DaemonSyncAccess(keychain: keychain), executable: Self.executable)
    }

    /// This program (the daemon is `keychainfs mount`), which git runs as the merge driver.
    static var executable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// Serves a sync call in the daemon's session; calls that change the clone run one at a time.
    func serve<Call: SyncCall>(_: Call.Type, _ request: ControlRequest) throws(KeychainError) -> KeychainValue? {
        try Call.serve(request) { call throws(KeychainError) in try run(call) }
    }

    /// Runs `call` in the daemon's session.
    func run<Call: SyncCall>(_ call: Call) throws(KeychainError) -> Call.Reply {
        guard Call.changesClone else { return try call.perform(in: session) }
        Self.gate.lock()
        defer { Self.gate.unlock() }
        return try call.perform(in: session)
    }

    /// `--sync-interval`: syncs every `interval` seconds while the daemon runs, if the vault syncs. A failed
    /// round (locked before first unlock, remote unreachable) is logged by status and tried again next time.
    static func syncPeriodically(_ keychain: Keychain, every interval: TimeInterval, log: Logger) {
        let thread = Thread {
            while true {
                Thread.sleep(forTimeInterval: interval)
                let commands = SyncCommands(keychain: keychain)
                guard (try? commands.session.status())?["configured"] == .bool(true) else { continue }
                do throws(KeychainError) {
                    let report = try commands.run(SyncNow())
                    log.info("sync: exported \(report.exported), imported \(report.imported)")
                } catch {
                    log.notice("sync failed: \(SecStatus.name(of: error.status)) (\(error.status))")
                }
            }
        }
        thread.name = "keychainfs-sync"
        thread.start()
    }
}
