import Foundation
import KeychainFSItemNaming
import KeychainFSEngine
import KeychainFSModel

/// Every object the service exports, answered on the bus thread: a call is routed by path and interface
/// to its interface's handler, with the caller (the peer process, from the bus) resolved by the access
/// policy and the call recorded in the audit log.
final class ServiceObjects: Sendable {
    static let serviceInterface = "org.freedesktop.Secret.Service"
    static let collectionInterface = "org.freedesktop.Secret.Collection"
    static let itemInterface = "org.freedesktop.Secret.Item"
    static let sessionInterface = "org.freedesktop.Secret.Session"
    static let promptInterface = "org.freedesktop.Secret.Prompt"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let introspectableInterface = "org.freedesktop.DBus.Introspectable"

    let keychain: Keychain
    let face: VaultFace
    let accessPolicy: AccessPolicy
    let audit: AuditLog?
    let enforcesAccess: Bool
    let link: BusLink
    let sessions = SessionTable()
    let prompts = PromptTable()
    let collectionLabel: CollectionLabel
    let changes: ChangeSignals

    init(
        keychain: Keychain, accessPolicy: AccessPolicy, audit: AuditLog?, enforcesAccess: Bool,
        link: BusLink
    ) {
        self.keychain = keychain
        face = VaultFace(keychain: keychain)
        self.accessPolicy = accessPolicy
        self.audit = audit
        self.enforcesAccess = enforcesAccess
        self.link = link
        collectionLabel = CollectionLabel(keychain: keychain)
        changes = ChangeSignals(
            keychain: keychain, face: face, label: collectionLabel, caller: accessPolicy.defaultCaller, link: link)
    }

    func watchChanges() { changes.start() }

    /// One call from the bus, on `connection`'s thread. Introspection and properties of the service's own
    /// shape need no caller; everything else is refused (AccessDenied, audited) to a process no rule admits
    /// under --strict.
    func handle(_ call: BusCall, on connection: BusConnection) -> Result<[BusValue], BusError> {
        guard let object = ObjectPath.parse(call.path) else {
            return .failure(.noSuchObject("no such object: \(call.path)"))
        }
        if call.interface == Self.introspectableInterface {
            guard call.member == "Introspect" else {
                return .failure(.unknownMethod("no method \(call.member) of \(call.interface)"))
            }
            return .success([.string(Introspection.xml(for: object, children: children(of: object)))])
        }
        if call.interface == "org.freedesktop.DBus.Peer" {
            return .failure(.unknownMethod("handled by the bus library"))
        }
        guard let peer = connection.peer(call.sender) else {
            record(call, pid: -1, uid: 0, caller: nil, status: SecStatus.missingEntitlement)
            return .failure(.accessDenied("the bus does not name the calling process"))
        }
        let resolved: (caller: Caller, pid: Int32, uid: UInt32)
        do {
            resolved = (try caller(peer, raisesPrompts: call.interface == Self.promptInterface), peer.pid, peer.uid)
        } catch {
            record(call, pid: peer.pid, uid: peer.uid, caller: nil, status: SecStatus.missingEntitlement)
            return .failure(error)
        }
        let auditedItem = audit == nil ? nil : auditTitle(call, object, resolved.caller)  // before a Delete removes it
        var outcome: Result<[BusValue], BusError>
        do {
            outcome = .success(try route(call, object, resolved.caller))
        } catch {
            outcome = .failure(error)
        }
        // The answer goes only to the connection of the process that asked, still running what it ran.
        if enforcesAccess, accessPolicy.decidesCallers, accessPolicy.bindsConnections,
            let changed = peer.changedSinceConnecting()
        {
            outcome = .failure(.accessDenied("access: \(changed)"))
        }
        if !(call.interface == Self.propertiesInterface && call.member != "Set") {
            let status: OSStatus =
                switch outcome {
                case .success: SecStatus.success
                case .failure(let error): Self.status(of: error)
                }
            // Fails closed, as the control socket does: an answer whose audit line cannot be written is withheld.
            if !record(
                call, item: auditedItem, pid: resolved.pid, uid: resolved.uid, caller: resolved.caller, status: status)
            {
                return .failure(.failed("the audit log cannot be written"))
            }
        }
        return outcome
    }

    private func route(_ call: BusCall, _ object: ObjectPath, _ caller: Caller) throws(BusError) -> [BusValue] {
        if call.interface == Self.propertiesInterface { return try properties(call, object, caller) }
        let interface = call.interface.isEmpty ? Self.interface(of: object) : call.interface
        switch (object, interface) {
        case (.service, Self.serviceInterface): return try serviceMethod(call, caller)
        case (.collection, Self.collectionInterface): return try collectionMethod(call, caller)
        case (.item(let reference), Self.itemInterface): return try itemMethod(call, reference, caller)
        case (.session(let id), Self.sessionInterface):
            guard call.member == "Close" else { throw .unknownMethod("no method \(call.member) of \(interface)") }
            try sessions.close(id, caller: call.sender)
            return []
        case (.prompt(let id), Self.promptInterface): return try promptMethod(call, id, caller)
        default: throw .unknownMethod("no method \(call.member) of \(interface) at \(call.path)")
        }
    }

    static func interface(of object: ObjectPath) -> String {
        switch object {
        case .service: serviceInterface
        case .collection: collectionInterface
        case .item: itemInterface
        case .session: sessionInterface
        case .prompt: promptInterface
        case .node: introspectableInterface
        }
    }

    /// The paths below `object`, for introspection.
    private func children(of object: ObjectPath) -> [String] {
        switch object {
        case .service: return ["collection", "aliases", "session", "prompt"]
        case .node(let path) where path.hasSuffix("/collection"): return ["login"]
        case .node(let path) where path.hasSuffix("/aliases"): return ObjectPath.aliases
        default: return []  // items are not listed to a caller not yet known (Collection.Items names them)
        }
    }

    /// The caller a peer process is, by the one rule of every face (``PeerCaller``): access.toml decides,
    /// --strict refuses a process no rule matches; a client cannot claim groups on the bus.
    /// The caller names its executable only for a call that may raise a prompt (`device prompts` shows it;
    /// the audit line reads it itself): reading /proc/PID/exe was 8% of the daemon's time in a GetSecrets.
    private func caller(_ peer: PeerProcess, raisesPrompts: Bool) throws(BusError) -> Caller {
        do {
            return try PeerCaller.resolve(
                peer, policy: enforcesAccess ? accessPolicy : nil, fallback: accessPolicy.defaultCaller,
                namingExecutable: raisesPrompts)
        } catch {
            throw .accessDenied("\(error.message) (pid \(peer.pid), \(PeerProcess.executable(of: peer.pid) ?? "?"))")
        }
    }

    /// The audit line of a call: the operation `secret-service.<Member>`, the item (or else the object path),
    /// the caller; never a secret.
    @discardableResult
    private func record(
        _ call: BusCall, item: String? = nil, pid: Int32, uid: UInt32, caller: Caller?, status: OSStatus
    ) -> Bool {
        guard let audit else { return true }
        do {
            try audit.record(
                "secret-service." + call.member, item: item ?? call.path, status: status,
                by: .init(pid: pid, uid: uid, caller: caller))
            return true
        } catch {
            return false
        }
    }

    /// The item a call is about, titled as the mount and the control socket's audit lines title it
    /// (``ItemTitle``: `genp/SERVICE/ACCOUNT`): an item's own path, or the attributes CreateItem names.
    private func auditTitle(_ call: BusCall, _ object: ObjectPath, _ caller: Caller) -> String? {
        var attributes: [String: String]?
        if case .item(let reference) = object {
            attributes = (try? face.item(reference, caller))?.attributes
        } else if call.member == "CreateItem", let properties = call.arguments.first?.entries,
            let map = properties.first(where: { $0.key.stringValue == Self.attributesProperty })?.value
        {
            attributes = try? ItemMapping.attributes(map)
        }
        guard let attributes else { return nil }
        let (service, account) = ItemMapping.name(of: attributes)
        return ItemTitle.of(
            classCode: Schema.genericPassword.code,
            [Attributes.service.code: .string(service), Attributes.account.code: .string(account)])
    }

    private static func status(of error: BusError) -> OSStatus {
        switch error.name {
        case BusError.accessDenied("").name: SecStatus.missingEntitlement
        case BusError.isLocked("").name: SecStatus.interactionNotAllowed
        case BusError.noSuchObject("").name: SecStatus.itemNotFound
        case BusError.invalidArgs("").name: SecStatus.param
        default: SecStatus.internalComponent
        }
    }

    /// A client left the bus: its sessions close and its pending prompts are cancelled.
    func peerGone(_ name: String) {
        sessions.closeAll(of: name)
        for raised in prompts.removeAll(of: name) { keychain.prompts.cancel(raised) }
    }

    /// The bus went away: every client's sessions close and prompts are cancelled, as if each had left
    /// (a new bus gives out the same unique names again, so none may carry over).
    func forgetClients() {
        sessions.closeEveryone()
        for raised in prompts.removeEveryone() { keychain.prompts.cancel(raised) }
    }
}
