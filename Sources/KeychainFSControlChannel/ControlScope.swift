import KeychainFSEngine
import KeychainFSModel

/// What a control command can reach, and so what its caller needs when the vault's access policy is in
/// force (`mount --strict`, or rules in `access.toml`). docs/entry-points.md is the table of every entry point.
package enum ControlScope: Sendable, Equatable {
    /// The device's state, biometry's state, sync's configuration: no secret, no change.
    case information
    /// Items by the caller's access groups: SecItem calls, LAContext evaluations, Secure Enclave keys.
    case items
    /// Changes the device, answers prompts, or moves every item at once: needs the rule's permission.
    case permission(ControlPermission)
    /// The merge driver git runs during the daemon's own sync: a descendant of the daemon, or `vault`.
    case syncMerge
}

extension ControlCommand {
    package var scope: ControlScope {
        switch self {
        case .status, .deviceStatus, .biometryStatus, .syncStatus, .syncMembers, .laCanEvaluate: .information
        case .itemAdd, .itemAddIdentity, .itemCopyMatching, .itemUpdate, .itemDelete, .laEvaluate, .laInvalidate,
            .keySecureEnclave:
            .items
        case .deviceLock, .deviceUnlock, .deviceReboot, .passcodeSet, .passcodeChange, .passcodeRemove, .autoLock,
            .biometryEnroll, .biometryUnenroll, .unlockBiometry, .unmount, .bootUnlockEnable, .bootUnlockDisable,
            .unlockTPM:
            .permission(.device)
        case .promptAnswer, .promptAuto, .promptTimeout, .prompts: .permission(.prompts)
        case .backup, .restore, .syncNow, .syncInit, .syncJoin, .syncInvite, .syncRemove, .syncRotate, .syncLeave:
            .permission(.vault)
        case .syncMerge: .syncMerge
        }
    }
}
