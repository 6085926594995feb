import KeychainFSItemNaming
import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel

/// Answers control requests with the engine: the simulator commands, status, unmount, and the
/// SecItem calls of API clients. Passcodes arrive as data and are never echoed or logged.
struct ControlHandler: Sendable {
    let keychain: Keychain
    let mountpoint: String
    let requestUnmount: @Sendable () -> Void
    /// Per-application access: the caller of SecItem requests comes from the peer, not from what it claims.
    var accessPolicy: AccessPolicy? = nil
    /// docs/spec.md §8: every SecItem call and device command is recorded, with its outcome.
    var audit: AuditLog? = nil
    /// Off only by a test device's test switch (``LockGuards/controlAccess``).
    var enforcesAccess = true

    func handle(_ request: ControlRequest, from peer: ControlPeer) -> ControlResponse {
        var caller: Caller?
        do {
            caller = try authorize(request, peer)
            let result = try perform(request, peer: peer, caller: caller!)
            // Fails closed (docs/security.md, "Audit log"): an answer whose audit line cannot be written is withheld.
            try record(request, peer, caller, SecStatus.success)
            return ControlResponse(result: result)
        } catch {
            try? record(request, peer, caller, error.status)
            return ControlResponse(error: error)
        }
    }

    /// The caller of `request`, refused when the vault's access policy does not let it run the command: under
    /// `--strict` a caller no rule matches is refused everything but information; a command that needs a
    /// permission asks the policy (``AccessPolicy/permits(_:_:)``, the rule).
    private func authorize(_ request: ControlRequest, _ peer: ControlPeer) throws(KeychainError) -> Caller {
        let scope = request.command.scope
        guard enforcesAccess else { return accessPolicy?.defaultCaller ?? Caller(pid: peer.pid) }
        guard let accessPolicy, accessPolicy.strict || accessPolicy.hasRules else {
            return try caller(request.arguments, peer)
        }
        if scope == .information {
            return (try? caller(request.arguments, peer)) ?? Caller(accessGroups: [], pid: peer.pid)
        }
        let caller = try caller(request.arguments, peer)
        switch scope {
        case .information, .items:
            return caller
        case .permission(let permission):
            guard !accessPolicy.permits(caller, permission) else { return caller }
            throw KeychainError(
                SecStatus.missingEntitlement,
                "access: '\(request.command.rawValue)' needs a rule of access.toml that matches this process with allow = [\"\(permission.rawValue)\"]"
            )
        case .syncMerge:
            guard !accessPolicy.permits(caller, .vault), !AccessPolicy.process(peer.pid, descendsFrom: getpid()) else {
                return caller
            }
            throw KeychainError(
                SecStatus.missingEntitlement,
                "access: only the daemon's own sync (or a rule with allow = [\"vault\"]) merges sync files")
        }
    }

    /// The audit line of a control command: the caller, the item by its title (``ItemTitle``: class and
    /// naming attributes, escaped as the mount names them), never a value, a passcode or a query's other contents.
    private func record(_ request: ControlRequest, _ peer: ControlPeer, _ caller: Caller?, _ status: OSStatus)
        throws(KeychainError)
    {
        guard let audit, request.command != .status else { return }
        let call = try? request.command.callType.init(CallArguments(request.arguments), attachment: request.attachment)
        let item = call?.auditedItem.flatMap { ItemTitle.of(query: $0) }
        try audit.record(
            request.command.rawValue, item: item, status: status,
            by: .init(pid: peer.pid, uid: peer.uid, caller: caller))
    }

    private func perform(_ request: ControlRequest, peer: ControlPeer, caller: Caller) throws(KeychainError)
        -> KeychainValue?
    {
        switch request.command.callType {
        case let call as any EngineCall.Type:
            return try serveOnEngine(call, request, caller)
        case let call as any SyncCall.Type:
            return try SyncCommands(keychain: keychain).serve(call, request)
        default:
            return try performOnDaemon(request, caller: caller)
        }
    }

    /// A call any engine answers the same way (items, Secure Enclave, the authentication simulator): the call says what.
    private func serveOnEngine<Call: EngineCall>(_: Call.Type, _ request: ControlRequest, _ caller: Caller)
        throws(KeychainError) -> KeychainValue?
    {
        try Call.serve(request) { call throws(KeychainError) in try call.perform(on: keychain, caller: caller) }
    }

    /// The daemon's own commands: its status, the device it simulates, unmount, backup and restore.
    private func performOnDaemon(_ request: ControlRequest, caller: Caller) throws(KeychainError) -> KeychainValue? {
        switch request.command {
        case .status:
            // Item counts only for a caller with groups: under --strict an unmatched process learns the state alone.
            return try StatusCall.serve(request) { _ in status(counting: !caller.accessGroups.isEmpty) }
        case .deviceStatus:
            return try DeviceStatusCall.serve(request) { _ in status() }
        case .deviceLock:
            return try DeviceLock.serve(request) { _ in
                keychain.lockDevice()
                return status()
            }
        case .deviceReboot:
            return try DeviceReboot.serve(request) { _ in
                keychain.rebootDevice()
                return status()
            }
        case .deviceUnlock:
            return try DeviceUnlock.serve(request) { call throws(KeychainError) in
                try keychain.unlockDevice(passcode: call.passcode)
                return status()
            }
        case .passcodeSet:
            return try PasscodeSet.serve(request) { call throws(KeychainError) in
                try keychain.setPasscode(call.passcode)
                return status()
            }
        case .passcodeChange:
            return try PasscodeChange.serve(request) { call throws(KeychainError) in
                try keychain.changePasscode(old: call.old, new: call.new)
                return status()
            }
        case .passcodeRemove:
            return try PasscodeRemove.serve(request) { call throws(KeychainError) in
                try keychain.removePasscode(current: call.passcode)
            }
        case .bootUnlockEnable:
            return try BootUnlockEnable.serve(request) { call throws(KeychainError) in
                try keychain.enableBootUnlock(passcode: call.passcode, pcrs: call.pcrs)
                return status()
            }
        case .bootUnlockDisable:
            return try BootUnlockDisable.serve(request) { _ throws(KeychainError) in
                try keychain.disableBootUnlock()
                return status()
            }
        case .unlockTPM:
            return try DeviceUnlockWithTPM.serve(request) { _ throws(KeychainError) in
                try keychain.unlockWithBootSeal()
                return status()
            }
        case .autoLock:
            return try AutoLockCall.serve(request) { call throws(KeychainError) in
                try keychain.setAutoLock(seconds: call.seconds)
                return status()
            }
        case .unmount:
            return try UnmountCall.serve(request) { _ in requestUnmount() }
        case .backup:
            return try BackupCall.serve(request) { call throws(KeychainError) in
                let (archive, count) = try keychain.backup(password: call.password)
                return BackupCall.Archive(items: count, bytes: archive)
            }
        case .restore:
            return try RestoreCall.serve(request) { call throws(KeychainError) in
                try keychain.restore(call.archive, password: call.password, merge: call.merge)
            }
        default:
            throw KeychainError(SecStatus.unimplemented, "'\(request.command.rawValue)' has no handler")
        }
    }

    /// The device's state; `counting` adds the item counts (`keychainfs status`), which cost a scan of every
    /// table: a device command answers without them, so `device lock` returns as soon as it is in force.
    private func status(counting: Bool = false) -> DaemonStatus {
        DaemonStatus(
            keychain.deviceStatus(), vault: keychain.vault.directory, mountpoint: mountpoint, pid: getpid(),
            deviceKey: keychain.deviceKeyOrigin, bootUnlockPCRs: keychain.bootUnlockPCRs?.description,
            items: counting ? try? keychain.itemCounts() : nil)
    }

    /// The engine's rule (``PeerCaller``): while access rules exist (or in strict mode) the policy decides
    /// from the peer process and what the client claims is ignored; otherwise its declared groups (its
    /// entitlements) stand. The process a prompt names is the peer (SO_PEERCRED).
    private func caller(_ args: KeychainDictionary, _ peer: ControlPeer) throws(KeychainError) -> Caller {
        var claimed: [String]?
        if let groups = args[CallerClaims.accessGroups]?.arrayValue {
            claimed = groups.compactMap(\.stringValue)
            guard claimed?.count == groups.count else {
                throw KeychainError(SecStatus.param, "access groups must be strings")
            }
        }
        var caller = try PeerCaller.resolve(peer, policy: accessPolicy, claimedGroups: claimed, fallback: Caller())
        if caller.executable == nil { caller.executable = args[CallerClaims.executable]?.stringValue }
        return caller
    }
}
