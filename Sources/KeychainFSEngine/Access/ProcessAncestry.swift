import KeychainFSModel
import KeychainFSStore

extension AccessPolicy {
    /// Whether process `pid` is `ancestor` or descends from it (within ``maxAncestors`` generations): the
    /// merge driver that git runs during the daemon's own sync is the daemon's descendant, no other caller is.
    public static func process(_ pid: Int32, descendsFrom ancestor: Int32) -> Bool {
        var next: Int32? = pid
        for _ in 0...maxAncestors {
            guard let current = next else { return false }
            if current == ancestor { return true }
            next = ProcessIdentity.parent(of: current)
        }
        return false
    }

    /// Whether `caller` (what ``caller(pid:uid:)`` made of a process) may run a control command that needs
    /// `permission` (docs/entry-points.md): under `--strict` only with its rule's `allow`; without
    /// `--strict` device and prompt commands stay open to the user's processes, while `vault` (backup,
    /// restore, sync: every group's items at once) needs the permission whenever rules exist.
    public func permits(_ caller: Caller, _ permission: ControlPermission) -> Bool {
        guard strict || hasRules else { return true }
        return caller.permissions.contains(permission) || (!strict && permission != .vault)
    }
}
