import Foundation
import KeychainFSModel
import Testing
import KeychainFSTestSupport

/// EntryPointTests' probes of docs/entry-points.md's Secret Service rows: the strict vault served on a
/// private bus, raw calls through jeepney (Tests/SecretServiceTests/Clients/hostile_client.py), the
/// audit log's refusals.
extension EntryPointTests {
    /// Mounts `m` again with the Secret Service on a private bus (so the D-Bus rows have a bus) and keeps the
    /// bus address the mount printed in `ROOT/bus-address`.
    static func serveBus(_ m: MountedVault, _ arguments: [String], environment: [String: String]? = nil) throws {
        let mounted = m.remount(arguments + ["--secret-service", "--private-bus"], environment: environment)
        try expectSuccess(mounted)
        let prefix = "DBUS_SESSION_BUS_ADDRESS="
        let address = try #require(mounted.stdout.split(separator: "\n").first { $0.hasPrefix(prefix) })
        try String(address.dropFirst(prefix.count)).write(
            toFile: m.root + "/bus-address", atomically: true, encoding: .utf8)
    }

    static func auditLog(_ m: MountedVault) -> String { m.root + "/audit.jsonl" }

    /// `Tests/SecretServiceTests/Clients/hostile_client.py ARGUMENTS` (raw calls through jeepney) on `m`'s
    /// bus, by Debian's python3: a process that no rule of ``strictVault(mountEnvironment:)`` matches.
    static func busClient(_ m: MountedVault, _ arguments: [String]) -> CommandResult {
        let address = (try? String(contentsOfFile: m.root + "/bus-address", encoding: .utf8)) ?? ""
        return Command.run(
            "/usr/bin/python3", [repository + "/Tests/SecretServiceTests/Clients/hostile_client.py"] + arguments,
            environment: ["DBUS_SESSION_BUS_ADDRESS": address], timeout: 60)
    }

    /// The audit log's lines of refused (-34018) Secret Service calls.
    static func refusedBusCalls(_ m: MountedVault) -> Int {
        ((try? String(contentsOfFile: auditLog(m), encoding: .utf8)) ?? "").split(separator: "\n").filter {
            guard let line = (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] else {
                return false
            }
            return (line["operation"] as? String ?? "").hasPrefix("secret-service.")
                && line["status"] as? Int == Int(SecStatus.missingEntitlement)
        }.count
    }

    /// A row of the Secret Service table: every call of the row is AccessDenied and the audit log has new
    /// refusals (property reads are not audited, so at least one line per row, not one per call).
    static func bus(_ row: String) -> Probe {
        { m in
            let before = refusedBusCalls(m)
            let r = busClient(m, ["row", row])
            let answers = r.stdout.split(separator: "\n")
            let denied =
                r.succeeded && !answers.isEmpty
                && answers.allSatisfy { $0.hasSuffix(" org.freedesktop.DBus.Error.AccessDenied") }
            let audited = refusedBusCalls(m) > before
            return (denied && audited, "exit \(r.status): \(r.stdout) \(r.stderr) audited: \(audited)")
        }
    }
}
