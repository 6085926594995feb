import KeychainFSModel
import KeychainFSStore

/// The systemd unit a process belongs to, read from its cgroup path as systemd lays the tree out
/// (docs/access.md): a unit of the system manager sits under `system.slice` (in nested slices or not),
/// `/system.slice/backup.service`; a unit of user UID's manager under its `user@UID.service`,
/// `/user.slice/user-UID.slice/user@UID.service/app.slice/backup.service`. Only the first unit below
/// the slices counts: cgroups a delegated unit makes inside itself (`…/app.service/backup.service`) are
/// that unit, never another. Anything else (the root, a login session's scope, machine.slice) is no unit.
struct SystemdUnit: Equatable, Sendable {
    /// The unit's full name, `backup.service`.
    let name: String
    /// nil for the system manager; the uid of the user manager otherwise.
    let userManager: UInt32?

    init(name: String, userManager: UInt32?) {
        self.name = name
        self.userManager = userManager
    }

    /// From the text of `/proc/PID/cgroup`: the cgroup v2 line (`0::/…`), else (a legacy or hybrid
    /// system, where v2 may show only `/`) the v1 `name=systemd` one. Either is a tree only root and
    /// systemd write outside a user's delegated part.
    init?(cgroupFile text: String) {
        let lines = text.split(separator: "\n")
        if let unified = lines.first(where: { $0.hasPrefix("0::") }),
            let unit = SystemdUnit(cgroupPath: String(unified.dropFirst(3)))
        {
            self = unit
        } else if let named = lines.first(where: { $0.contains(":name=systemd:") }),
            let range = named.range(of: ":name=systemd:"),
            let unit = SystemdUnit(cgroupPath: String(named[range.upperBound...]))
        {
            self = unit
        } else {
            return nil
        }
    }

    /// From a cgroup path (`/system.slice/backup.service`).
    init?(cgroupPath path: String) {
        // "" before the leading "/"
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard path.hasPrefix("/"), let top = parts.first else { return nil }
        var rest = parts.dropFirst()
        var manager: UInt32?
        if top == "user.slice" {
            guard rest.count >= 2, let slice = rest.first, slice.hasPrefix("user-"), slice.hasSuffix(".slice"),
                let uid = UInt32(slice.dropFirst(5).dropLast(6)), rest.dropFirst().first == "user@\(uid).service"
            else { return nil }
            manager = uid
            rest = rest.dropFirst(2)
        } else {
            guard top == "system.slice" else { return nil }
        }
        guard let unit = rest.drop(while: { $0.hasSuffix(".slice") }).first, !unit.isEmpty else { return nil }
        name = String(unit)
        userManager = manager
    }

    /// A rule's unit as systemd names it: a name without a unit type is a service (`backup` is `backup.service`).
    static func normalized(_ unit: String) -> String {
        let types = [
            ".service", ".scope", ".socket", ".timer", ".mount", ".target", ".path", ".swap", ".device", ".automount",
        ]
        return types.contains { unit.hasSuffix($0) } ? unit : unit + ".service"
    }
}
