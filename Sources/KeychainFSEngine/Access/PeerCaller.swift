import Foundation
import KeychainFSModel

/// A process at the other end of a request, as the kernel names it (FUSE's request context, SO_PEERCRED,
/// a D-Bus peer's credentials).
///
/// A transport that keeps a connection open across calls (the control socket, the bus) binds the process to
/// it when it first sees it (`connectedAs`): whatever can change between then and a call (an exec of an
/// allowed binary, a fork whose child goes on with the connection, a recycled pid) then shows as another
/// ``ExecutableStamp``, and the call is refused (docs/threat-model.md, "What a connection vouches for").
/// A FUSE request has no connection: it is the process as it is at that system call.
public struct PeerProcess: Sendable, Hashable {
    public let pid: Int32
    public let uid: UInt32
    /// What the process ran when its transport first saw it; nil for a request made there and then.
    public let connectedAs: ExecutableStamp?

    public init(pid: Int32, uid: UInt32, connectedAs: ExecutableStamp? = nil) {
        self.pid = pid
        self.uid = uid
        self.connectedAs = connectedAs
    }

    /// The peer of a connection seen now: bound to what process `pid` runs at this moment.
    public static func connecting(pid: Int32, uid: UInt32) -> PeerProcess {
        PeerProcess(pid: pid, uid: uid, connectedAs: ExecutableStamp(pid: pid))
    }

    /// Why the process no longer vouches for the connection it made, or nil while it runs what it ran then
    /// (always nil for a peer with no connection).
    public func changedSinceConnecting() -> String? {
        guard let connectedAs else { return nil }
        guard let now = ExecutableStamp(pid: pid) else { return "process \(pid) has exited since it connected" }
        guard now == connectedAs else {
            return "process \(pid) executed another program since it connected: a connection is not handed on"
        }
        return nil
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
            if policy.bindsConnections, let changed = peer.changedSinceConnecting() {
                throw KeychainError(SecStatus.missingEntitlement, "access: \(changed)")
            }
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
