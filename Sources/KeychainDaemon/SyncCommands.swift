import ControlChannel
import Foundation
import KeychainEngine
import KeychainSync
import KeychainModel
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

    func perform(_ command: ControlCommand, _ args: KeychainDictionary) throws(KeychainError) -> KeychainValue? {
        switch command {
        case .syncMerge:
            guard let name = args["name"]?.stringValue, let ours = args["ours"]?.dataValue,
                let theirs = args["theirs"]?.dataValue
            else {
                throw KeychainError(SecStatus.param, "sync.merge needs 'name', 'ours' and 'theirs'")
            }
            return .data(try keychain.mergeSyncFiles(name: name, ours: ours, theirs: theirs))
        case .syncStatus:
            return .dictionary(try session.status())
        case .syncMembers:
            return .array(try session.members())
        default:
            break
        }
        Self.gate.lock()
        defer { Self.gate.unlock() }
        switch command {
        case .syncNow: return Self.encode(try session.sync())
        case .syncInit:
            return Self.encode(
                try session.initialize(remote: try string(args, "remote"), name: try string(args, "name")))
        case .syncJoin:
            let text = try string(args, "code")
            let code: InvitationCode
            do { code = try InvitationCode.parse(text) } catch { throw KeychainError(SecStatus.param, error.message) }
            return Self.encode(
                try session.join(remote: try string(args, "remote"), code: code, name: try string(args, "name")))
        case .syncInvite:
            let seconds = args["seconds"]?.numberValue ?? 3600
            guard seconds > 0 else {
                throw KeychainError(SecStatus.param, "an invitation lives a positive number of seconds")
            }
            return .string(try session.invite(lifetime: TimeInterval(seconds)).grouped)
        case .syncRemove: return Self.encode(try session.remove(try string(args, "member")))
        case .syncRotate: return Self.encode(try session.rotate())
        case .syncLeave: return Self.encode(try session.leave())
        default: throw KeychainError(SecStatus.param, "not a sync command")
        }
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
                    let report = try commands.perform(.syncNow, [:])?.dictionaryValue ?? [:]
                    log.info(
                        "sync: exported \(report["exported"]?.numberValue ?? 0), imported \(report["imported"]?.numberValue ?? 0)"
                    )
                } catch {
                    log.notice("sync failed: \(SecStatus.name(of: error.status)) (\(error.status))")
                }
            }
        }
        thread.name = "keychainfs-sync"
        thread.start()
    }

    /// A report as a control value.
    static func encode(_ report: SyncReport) -> KeychainValue { .dictionary(report.dictionary) }

    private func string(_ args: KeychainDictionary, _ key: String) throws(KeychainError) -> String {
        guard let value = args[key]?.stringValue else { throw KeychainError(SecStatus.param, "missing '\(key)'") }
        return value
    }
}
