import Foundation
import KeychainModel

/// A process at the other end of a request, as the kernel names it (FUSE's request context, SO_PEERCRED,
/// a D-Bus peer's credentials).
public struct PeerProcess: Sendable, Hashable {
    public let pid: Int32
    public let uid: UInt32

    public init(pid: Int32, uid: UInt32) {
        self.pid = pid
        self.uid = uid
    }

    /// The executable of process `pid`, read from /proc now (nil once it has gone). readlink(2) itself: every
    /// D-Bus call and prompt names its caller, and FileManager's path handling around it cost a Secret
    /// Service GetSecrets more than the readlink (a twentieth of the daemon's time in a round trip).
    public static func executable(of pid: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/\(pid)/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Turning a peer into a ``Caller``: the one rule every face uses (the mount, the control socket, the
/// D-Bus face), so what a client claims never outweighs the access rules.
public enum PeerCaller {
    /// The caller `peer` acts as. While `policy` decides callers (rules exist, or `--strict`), the rule that
    /// matches the process decides and what the client claims is ignored; under `--strict` a process no rule
    /// matches is refused (errSecMissingEntitlement). Otherwise the client's `claimedGroups` (its
    /// entitlements) stand, else `fallback`. The caller carries the peer's pid and, when `namingExecutable`,
    /// its executable (prompts and the audit name it; the mount's hot path leaves it out).
    public static func resolve(
        _ peer: PeerProcess, policy: AccessPolicy?, claimedGroups: [String]? = nil, fallback: Caller,
        namingExecutable: Bool = true
    ) throws(KeychainError) -> Caller {
        var caller: Caller
        if let policy, policy.decidesCallers {
            guard let granted = policy.caller(pid: peer.pid, uid: peer.uid) else {
                throw KeychainError(
                    SecStatus.missingEntitlement, "strict access: no rule of access.toml matches this process")
            }
            caller = granted
        } else if let claimedGroups {
            caller = Caller(accessGroups: claimedGroups)
        } else {
            caller = fallback
        }
        return namingExecutable ? caller.acting(asProcess: peer.pid) : caller.with(pid: peer.pid)
    }
}

extension Caller {
    /// This caller as process `pid`: the pid and executable a prompt and the audit line name.
    public func acting(asProcess pid: Int32) -> Caller {
        var caller = with(pid: pid)
        caller.executable = PeerProcess.executable(of: pid)
        return caller
    }

    func with(pid: Int32) -> Caller {
        var caller = self
        caller.pid = pid
        return caller
    }
}

extension AccessPolicy {
    /// Whether the policy decides who a process is (rules exist, or `--strict`): then a client's claims count for nothing.
    public var decidesCallers: Bool { strict || hasRules }
}
