import Foundation
import Testing
import KeychainFSTestSupport

/// Per-application access on the bus: the caller is the D-Bus peer's process, access.toml and --strict
/// apply as on the control socket, a refused call is AccessDenied and has its audit line.
@Suite struct BusAccessTests {
    static let python =
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/usr/bin/python3")).map { "/usr/bin/" + $0 }
        ?? "/usr/bin/python3"

    func auditLines(_ path: String) -> [[String: Any]] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    /// `disableGuard`: the test switch that turns the control-access guard off, which shows that the
    /// refusal below is the guard's doing (with it off, secret-tool is served).
    func serve(disableGuard: Bool) throws -> (ServedVault, String) {
        let log = TestDirectory.root + "/kcfs-ss-audit-" + UUID().uuidString.prefix(8) + ".jsonl"
        let s = try ServedVault(
            mountArguments: ["--strict", "--audit-log", log],
            mountEnvironment: disableGuard ? ["KEYCHAINFS_TEST_DISABLE_GUARDS": "control-access"] : [:])
        try expectSuccess(s.vault.cli(["access", "grant", "default", "--exe", Self.python, "--vault", s.vault.vault]))
        return (s, log)
    }

    @Test func aProcessNoRuleMatchesIsRefusedAndAudited() throws {
        let (s, log) = try serve(disableGuard: false)
        defer { unlink(log) }
        try expectSuccess(s.python("keyring_client", ["set", "strict-svc", "alice", "allowed-secret"]))
        #expect(
            s.python("keyring_client", ["get", "strict-svc", "alice"]).stdout == "allowed-secret",
            "python matches a rule: served")

        let lookup = s.secretTool(["lookup", "service", "strict-svc", "username", "alice"])
        #expect(!lookup.succeeded && lookup.stdout.isEmpty, "\(lookup)")
        let store = s.secretTool(["store", "--label=x", "service", "strict-svc", "username", "mallory"], stdin: "nope")
        #expect(!store.succeeded && store.stderr.contains("access"), "\(store)")
        let docker = s.docker("list", stdin: "")
        #expect(!docker.succeeded, "\(docker)")
        #expect(
            MountFiles.text(s.vault.path("genp/strict-svc/mallory/value")) == nil,
            "nothing was stored for the refused client")

        let refused = auditLines(log).filter {
            ($0["operation"] as? String ?? "").hasPrefix("secret-service.") && $0["status"] as? Int == -34018
        }
        #expect(refused.contains { ($0["executable"] as? String ?? "").hasSuffix("secret-tool") }, "\(auditLines(log))")
        #expect(refused.contains { ($0["executable"] as? String ?? "").hasSuffix("docker-credential-secretservice") })
        #expect(
            !((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("allowed-secret"),
            "no secret in the audit log")
        let served = auditLines(log).filter { $0["status"] as? Int == 0 }
        #expect(
            served.contains {
                $0["operation"] as? String == "secret-service.CreateItem"
                    && $0["item"] as? String == "genp/strict-svc/alice"
                    && ($0["executable"] as? String ?? "").contains("python")
            }, "an item is titled as the mount names it: \(served)")
        #expect(
            served.contains {
                $0["operation"] as? String == "secret-service.GetSecret"
                    && $0["item"] as? String == "genp/strict-svc/alice"
            })
    }

    @Test func withTheGuardSwitchedOffTheSameClientIsServed() throws {
        let (s, log) = try serve(disableGuard: true)
        defer { unlink(log) }
        try expectSuccess(s.python("keyring_client", ["set", "strict-svc", "alice", "allowed-secret"]))
        #expect(s.secretTool(["lookup", "service", "strict-svc", "username", "alice"]).stdout == "allowed-secret")
        let answers = everyMethod(s, disableGuard: true)
        #expect(answers.filter { $0.hasSuffix("AccessDenied") }.isEmpty, "\(answers)")
    }

    /// Every row of docs/entry-points.md's Secret Service table, called by a process no rule matches (a copy of
    /// python, another file than the one the rule names). EntryPointTests probes the same rows refused.
    func everyMethod(_ s: ServedVault, disableGuard: Bool) -> [String] {
        let copy = s.vault.root + "/unmatched-python"
        try? FileManager.default.copyItem(atPath: Self.python, toPath: copy)
        let result = Command.run(
            copy, [ServedVault.clients + "/hostile_client.py", "every-method"], environment: s.bus.environment,
            timeout: 60)
        #expect(result.succeeded, "\(result)")
        return result.stdout.split(separator: "\n").map(String.init)
    }
}
