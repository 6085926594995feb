import KeychainFSModel
import KeychainFSStore

/// One rule of `access.toml` (docs/spec.md §12): what identifies a caller, and the access groups it is granted,
/// in order (the first is where its new items go).
public struct AccessRule: Sendable, Hashable {
    /// How a caller is recognised.
    public enum Match: Sendable, Hashable {
        /// The caller's executable (`/proc/PID/exe`), an absolute path.
        case executable(String)
        /// The SHA-256 of the caller's executable, lowercase hex.
        case sha256(String)
        /// The caller's real uid.
        case uid(UInt32)
        /// A unit of the system manager (`deploy.service`: the caller's cgroup is
        /// `/system.slice/…/deploy.service`; see ``SystemdUnit``).
        case unit(String)
        /// A unit of the caller's own user manager (`deploy.service`: the cgroup is
        /// `/user.slice/user-UID.slice/user@UID.service/…/deploy.service`, UID the caller's).
        case userUnit(String)
    }

    /// The rule's name, shown by `access list` and carried by the ``Caller`` it grants (for the audit log).
    public var name: String
    public var match: Match
    /// Whether an executable or SHA-256 rule also matches a caller one of whose ancestors matches.
    public var ancestor: Bool
    /// The access groups granted, in order.
    public var groups: [String]
    /// The control commands allowed beyond item calls (`allow = [...]`); needed under `--strict`, and for
    /// the vault's bulk commands whenever rules exist.
    public var permissions: Set<ControlPermission>

    public init(
        name: String, match: Match, ancestor: Bool = false, groups: [String], permissions: Set<ControlPermission> = []
    ) {
        self.name = name
        self.match = match
        self.ancestor = ancestor
        self.groups = groups
        self.permissions = permissions
    }

    /// The default name of a rule: what it matches, e.g. `exe:/usr/bin/deploy`, `uid:1000`.
    public static func defaultName(for match: Match) -> String {
        switch match {
        case .executable(let path): "exe:" + path
        case .sha256(let hex): "sha256:" + hex
        case .uid(let uid): "uid:\(uid)"
        case .unit(let unit): "unit:" + unit
        case .userUnit(let unit): "user-unit:" + unit
        }
    }
}

/// How far a rule can be trusted to tell the user's programs apart (docs/threat-model.md, "Boundary and
/// advisory rules").
public enum Assurance: String, Sendable, Hashable {
    /// The kernel makes the match unforgeable by the user's other processes: another uid (with
    /// `--allow-other`), a unit of the system manager (whose cgroup the user cannot enter).
    case boundary
    /// Code of the same user can borrow the match (ptrace, /proc/PID/mem, an exec or fork timed around a
    /// check, a rewritten file): it keeps honest programs apart, not a hostile one.
    case advisory
}

extension AccessRule {
    /// The rule's assurance: an ancestor rule, an executable, its digest and a user unit are advisory.
    public var assurance: Assurance {
        guard !ancestor else { return .advisory }
        switch match {
        case .uid, .unit: return .boundary
        case .executable, .sha256, .userUnit: return .advisory
        }
    }
}
