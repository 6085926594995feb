import ItemNaming
import ControlChannel
import Foundation
import KeychainEngine
import KeychainModel

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
            // Fails closed (issue 22, 17): an answer whose audit line cannot be written is withheld.
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
        let call = try? request.command.callType?.init(CallArguments(request.arguments), attachment: request.attachment)
        let item = call?.auditedItem.flatMap { ItemTitle.of(query: $0) }
        try audit.record(
            request.command.rawValue, item: item, status: status,
            by: .init(pid: peer.pid, uid: peer.uid, rule: caller?.grantedBy))
    }

    private func perform(_ request: ControlRequest, peer: ControlPeer, caller: Caller) throws(KeychainError)
        -> KeychainValue?
    {
        let args = request.arguments
        switch request.command {
        case .status:
            // Item counts only for a caller with groups: under --strict an unmatched process learns the state alone.
            return try serve(StatusCall.self, request) { _ in status(counting: !caller.accessGroups.isEmpty) }
        case .deviceStatus:
            return try serve(DeviceStatusCall.self, request) { _ in status() }
        case .deviceLock:
            return try serve(DeviceLock.self, request) { _ in
                keychain.lockDevice(); return status()
            }
        case .deviceReboot:
            return try serve(DeviceReboot.self, request) { _ in
                keychain.rebootDevice(); return status()
            }
        case .deviceUnlock:
            return try serve(DeviceUnlock.self, request) { call throws(KeychainError) in
                try keychain.unlockDevice(passcode: call.passcode); return status()
            }
        case .passcodeSet:
            return try serve(PasscodeSet.self, request) { call throws(KeychainError) in
                try keychain.setPasscode(call.passcode); return status()
            }
        case .passcodeChange:
            return try serve(PasscodeChange.self, request) { call throws(KeychainError) in
                try keychain.changePasscode(old: call.old, new: call.new)
                return status()
            }
        case .passcodeRemove:
            return try serve(PasscodeRemove.self, request) { call throws(KeychainError) in
                try keychain.removePasscode(current: call.passcode)
            }
        case .autoLock:
            return try serve(AutoLockCall.self, request) { call throws(KeychainError) in
                try keychain.setAutoLock(seconds: call.seconds); return status()
            }
        case .unmount:
            requestUnmount()
            return nil
        case .itemAdd:
            return try serve(ItemAdd.self, request) { call throws(KeychainError) in
                try keychain.add(call.query, caller: caller)
            }
        case .itemCopyMatching:
            return try serve(ItemCopyMatching.self, request) { call throws(KeychainError) in
                try keychain.copyMatching(call.query, caller: caller)
            }
        case .itemUpdate:
            return try serve(ItemUpdate.self, request) { call throws(KeychainError) in
                try keychain.update(call.query, call.attributes, caller: caller)
            }
        case .itemDelete:
            return try serve(ItemDelete.self, request) { call throws(KeychainError) in
                try keychain.delete(call.query, caller: caller)
            }
        case .itemAddIdentity:
            return try serve(ItemAddIdentity.self, request) { call throws(KeychainError) in
                try keychain.addIdentity(certificate: call.certificate, key: call.key, caller: caller)
            }
        case .syncNow, .syncInit, .syncJoin, .syncInvite, .syncStatus, .syncMerge, .syncMembers, .syncRemove,
            .syncRotate, .syncLeave:
            return try SyncCommands(keychain: keychain).perform(request.command, args)
        case .backup:
            return try serve(BackupCall.self, request) { call throws(KeychainError) in
                let (archive, count) = try keychain.backup(password: call.password)
                return BackupCall.Archive(items: count, bytes: archive)
            }
        case .restore:
            return try serve(RestoreCall.self, request) { call throws(KeychainError) in
                try keychain.restore(call.archive, password: call.password, merge: call.merge)
            }
        case .biometryEnroll, .biometryUnenroll, .biometryStatus, .unlockBiometry, .promptAnswer, .promptAuto,
            .promptTimeout, .prompts,
            .laCanEvaluate, .laEvaluate, .laInvalidate:
            return try AuthenticationCommands(keychain: keychain).perform(request.command, args, caller: caller)
        case .keySecureEnclave:
            return try serve(SecureEnclaveCall.self, request) { call throws(KeychainError) in
                try keychain.secureEnclave(call.operation, caller: caller)
            }
        }
    }

    /// Decodes `request` as a `Call`, runs `body`, and encodes its reply: the codec is the call's, shared with the client.
    private func serve<Call: ControlCall>(
        _: Call.Type, _ request: ControlRequest,
        _ body: (Call) throws(KeychainError) -> Call.Reply
    ) throws(KeychainError) -> KeychainValue? {
        Call.encode(try body(try Call(CallArguments(request.arguments), attachment: request.attachment)))
    }

    /// The device's state; `counting` adds the item counts (`keychainfs status`), which cost a scan of every
    /// table: a device command answers without them, so `device lock` returns as soon as it is in force.
    private func status(counting: Bool = false) -> DaemonStatus {
        DaemonStatus(
            keychain.deviceStatus(), vault: keychain.vault.directory, mountpoint: mountpoint, pid: getpid(),
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
