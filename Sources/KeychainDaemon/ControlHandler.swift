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
        guard let accessPolicy, accessPolicy.strict || accessPolicy.hasRules else { return try caller(request.arguments, peer) }
        if scope == .information { return (try? caller(request.arguments, peer)) ?? Caller(accessGroups: [], pid: peer.pid) }
        let caller = try caller(request.arguments, peer)
        switch scope {
        case .information, .items:
            return caller
        case .permission(let permission):
            guard !accessPolicy.permits(caller, permission) else { return caller }
            throw KeychainError(SecStatus.missingEntitlement,
                                "access: '\(request.command.rawValue)' needs a rule of access.toml that matches this process with allow = [\"\(permission.rawValue)\"]")
        case .syncMerge:
            guard !accessPolicy.permits(caller, .vault), !AccessPolicy.process(peer.pid, descendsFrom: getpid()) else { return caller }
            throw KeychainError(SecStatus.missingEntitlement, "access: only the daemon's own sync (or a rule with allow = [\"vault\"]) merges sync files")
        }
    }

    /// The audit line of a control command: the caller, the item by its title (``ItemTitle``: class and
    /// naming attributes, escaped as the mount names them), never a value, a passcode or a query's other contents.
    private func record(_ request: ControlRequest, _ peer: ControlPeer, _ caller: Caller?, _ status: OSStatus) throws(KeychainError) {
        guard let audit, request.command != .status else { return }
        let item = request.arguments["query"]?.dictionaryValue.flatMap { ItemTitle.of(query: $0) }
        try audit.record(request.command.rawValue, item: item, status: status, by: .init(pid: peer.pid, uid: peer.uid, rule: caller?.grantedBy))
    }

    private func perform(_ request: ControlRequest, peer: ControlPeer, caller: Caller) throws(KeychainError) -> KeychainValue? {
        let args = request.arguments
        switch request.command {
        case .status:
            // Item counts only for a caller with groups: under --strict an unmatched process learns the state alone.
            return status(counting: !caller.accessGroups.isEmpty)
        case .deviceStatus:
            return status()
        case .deviceLock:
            keychain.lockDevice()
            return status()
        case .deviceReboot:
            keychain.rebootDevice()
            return status()
        case .deviceUnlock:
            try keychain.unlockDevice(passcode: try data(args, "passcode"))
            return status()
        case .passcodeSet:
            try keychain.setPasscode(try data(args, "passcode"))
            return status()
        case .passcodeChange:
            try keychain.changePasscode(old: try data(args, "old"), new: try data(args, "new"))
            return status()
        case .passcodeRemove:
            let deleted = try keychain.removePasscode(current: try data(args, "passcode"))
            return .dictionary(["deletedItems": .number(Int64(deleted))])
        case .autoLock:
            try keychain.setAutoLock(seconds: try autoLockSeconds(args))
            return status()
        case .unmount:
            requestUnmount()
            return nil
        case .itemAdd:
            return try keychain.add(try dictionary(args, "query"), caller: caller)
        case .itemCopyMatching:
            return try keychain.copyMatching(try dictionary(args, "query"), caller: caller)
        case .itemUpdate:
            try keychain.update(try dictionary(args, "query"), try dictionary(args, "attributes"), caller: caller)
            return nil
        case .itemDelete:
            try keychain.delete(try dictionary(args, "query"), caller: caller)
            return nil
        case .syncNow, .syncInit, .syncJoin, .syncInvite, .syncStatus, .syncMerge:
            return try SyncCommands(keychain: keychain).perform(request.command, args)
        case .backup:
            let (archive, count) = try keychain.backup(password: try data(args, "password"))
            return .dictionary(["items": .number(Int64(count)), "archive": .data(archive)])
        case .restore:
            guard let archive = request.attachment else { throw KeychainError(SecStatus.param, "restore carries the backup's bytes, not a path") }
            let outcome = try keychain.restore(archive, password: try data(args, "password"), merge: args["merge"] == .bool(true))
            return .dictionary(["added": .number(Int64(outcome.added)), "replaced": .number(Int64(outcome.replaced)), "kept": .number(Int64(outcome.kept))])
        case .biometryEnroll, .biometryUnenroll, .biometryStatus, .unlockBiometry, .promptAnswer, .promptAuto, .promptTimeout, .prompts,
             .laCanEvaluate, .laEvaluate, .laInvalidate:
            return try AuthenticationCommands(keychain: keychain).perform(request.command, args, caller: caller)
        case .keySecureEnclave:
            return try keychain.secureEnclave(try dictionary(args, "request"), caller: caller)
        }
    }

    /// The device's state; `counting` adds the item counts (`keychainfs status`), which cost a scan of every
    /// table: a device command answers without them, so `device lock` returns as soon as it is in force.
    private func status(counting: Bool = false) -> KeychainValue {
        let s = keychain.deviceStatus()
        var d: KeychainDictionary = [
            "state": .string(s.state.rawValue), "passcodeSet": .bool(s.passcodeSet), "failedAttempts": .number(Int64(s.failedAttempts)),
            "testDevice": .bool(s.testDevice), "vault": .string(keychain.vault.directory), "mountpoint": .string(mountpoint),
            "pid": .number(Int64(getpid())),
        ]
        if let until = s.lockedOutUntil { d["lockedOutUntil"] = .date(until) }
        if let seconds = s.autoLockSeconds { d["autoLockSeconds"] = .number(Int64(seconds)) }
        if counting, let counts = try? keychain.itemCounts() { d["items"] = .dictionary(counts.mapValues { .number(Int64($0)) }) }
        return .dictionary(d)
    }

    /// `seconds` (a whole number), or nil for "off" when it is absent; anything else present is errSecParam,
    /// never a silent "off".
    private func autoLockSeconds(_ args: KeychainDictionary) throws(KeychainError) -> Int? {
        if let unknown = args.keys.first(where: { $0 != "seconds" }) { throw KeychainError(SecStatus.param, "unknown auto-lock argument '\(unknown)'") }
        guard let value = args["seconds"] else { return nil }
        guard case .number(let number) = value, let seconds = Int(exactly: number) else {
            throw KeychainError(SecStatus.param, "auto-lock 'seconds' must be a whole number (omit it to turn auto-lock off)")
        }
        return seconds
    }

    private func data(_ args: KeychainDictionary, _ key: String) throws(KeychainError) -> Data {
        guard let value = args[key]?.dataValue else { throw KeychainError(SecStatus.param, "missing '\(key)'") }
        return value
    }

    private func dictionary(_ args: KeychainDictionary, _ key: String) throws(KeychainError) -> KeychainDictionary {
        guard let value = args[key]?.dictionaryValue else { throw KeychainError(SecStatus.param, "missing '\(key)' dictionary") }
        return value
    }

    /// The engine's rule (``PeerCaller``): while access rules exist (or in strict mode) the policy decides
    /// from the peer process and what the client claims is ignored; otherwise its declared groups (its
    /// entitlements) stand. The process a prompt names is the peer (SO_PEERCRED).
    private func caller(_ args: KeychainDictionary, _ peer: ControlPeer) throws(KeychainError) -> Caller {
        var claimed: [String]?
        if let groups = args["accessGroups"]?.arrayValue {
            claimed = groups.compactMap(\.stringValue)
            guard claimed?.count == groups.count else { throw KeychainError(SecStatus.param, "access groups must be strings") }
        }
        var caller = try PeerCaller.resolve(PeerProcess(pid: peer.pid, uid: peer.uid), policy: accessPolicy, claimedGroups: claimed, fallback: Caller())
        if caller.executable == nil { caller.executable = args["executable"]?.stringValue }
        return caller
    }
}
