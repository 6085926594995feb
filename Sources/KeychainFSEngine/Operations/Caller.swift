import KeychainFSModel

/// Who is calling: Apple's entitlements reduced to the ordered list of access groups.
/// The first group is where new items go when kSecAttrAccessGroup is not given.
public struct Caller: Sendable, Hashable {
    public var accessGroups: [String]
    /// The `access.toml` rule that granted these groups (for the audit log), or nil when no rule did.
    public var grantedBy: String?
    /// Whether that rule is a boundary or advisory (``Assurance``), for the audit log; nil when no rule granted.
    public var assurance: Assurance?
    /// The calling process, when known (FUSE's request, SO_PEERCRED): named in authentication prompts.
    public var pid: Int32?
    /// The calling process's executable, when known.
    public var executable: String?
    /// The control commands the granting rule allows (`access.toml`'s `allow`).
    public var permissions: Set<ControlPermission>
    /// The app's bundle id, when a simulated device's app calls (KeychainTesting's `run(as:)`): named in events.
    public var application: String?

    public init(
        accessGroups: [String] = Caller.defaultAccessGroups, grantedBy: String? = nil, pid: Int32? = nil,
        executable: String? = nil,
        permissions: Set<ControlPermission> = [], application: String? = nil
    ) {
        self.application = application
        self.accessGroups = accessGroups
        self.grantedBy = grantedBy
        self.permissions = permissions
        self.pid = pid
        self.executable = executable
    }

    /// The list used when none is configured (docs/spec.md §2).
    public static let defaultAccessGroups = ["default"]

    /// The group new items go to.
    public var defaultAccessGroup: String? { accessGroups.first }
}
