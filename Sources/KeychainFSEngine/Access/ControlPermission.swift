import KeychainFSModel
import KeychainFSStore

/// What a rule of `access.toml` may allow beyond its access groups (`allow = ["device", "prompts", "vault"]`):
/// the control commands that change the device, answer prompts, or move every secret in or out of the vault.
/// Which command needs which is `ControlCommand.scope`; the table of entry points is docs/entry-points.md.
public enum ControlPermission: String, Sendable, Hashable, CaseIterable, Comparable {
    /// lock, unlock, reboot, passcode set/change/remove, auto-lock, biometry enrolment, unmount.
    case device
    /// List pending authentication prompts, answer them, set their automatic answer and timeout.
    case prompts
    /// backup, restore, and sync's init, join, invite and rounds: every item of every group at once.
    case vault

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
