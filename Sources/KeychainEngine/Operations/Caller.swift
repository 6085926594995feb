/// Who is calling: Apple's entitlements reduced to the ordered list of access groups.
/// The first group is where new items go when kSecAttrAccessGroup is not given.
public struct Caller: Sendable, Hashable {
    public var accessGroups: [String]
    /// The `access.toml` rule that granted these groups (for the audit log), or nil when no rule did.
    public var grantedBy: String?

    public init(accessGroups: [String] = Caller.defaultAccessGroups, grantedBy: String? = nil) {
        self.accessGroups = accessGroups
        self.grantedBy = grantedBy
    }

    /// The list used when none is configured (SPEC §2).
    public static let defaultAccessGroups = ["default"]

    /// The group new items go to.
    public var defaultAccessGroup: String? { accessGroups.first }
}
