import ControlChannel
import Foundation
import KeychainEngine

/// The four SecItem calls on a vault, wherever its engine runs: through the daemon that serves it
/// (so its device lock applies), or in this process when no daemon runs (Apple's securityd has one
/// engine per device; here one per vault, enforced by ``VaultLock``).
public final class KeychainConnection: Sendable {
    private enum Backend: Sendable {
        case daemon(ControlClient)
        case inProcess(Keychain, VaultLock)
    }

    private let backend: Backend
    public let caller: Caller
    public let vault: Vault

    /// Connects to `vault`'s daemon, or opens it in-process. `createIfMissing` makes a vault without a
    /// passcode on first use.
    public init(vault: Vault, caller: Caller, createIfMissing: Bool = false) throws(KeychainError) {
        self.vault = vault
        self.caller = caller
        let client = ControlClient(vault: vault)
        if client.isDaemonRunning {
            backend = .daemon(client)
            return
        }
        if !vault.exists {
            guard createIfMissing else { throw KeychainError(SecStatus.notAvailable, "no vault at \(vault.directory)") }
            _ = try Vault.create(at: vault.directory)
        }
        let lock = try VaultLock(vault)
        backend = .inProcess(try Keychain(vault: vault), lock)
    }

    /// Whether calls go to a daemon.
    public var viaDaemon: Bool { if case .daemon = backend { true } else { false } }

    public func add(_ attributes: KeychainDictionary) throws(KeychainError) -> KeychainValue? {
        switch backend {
        case .daemon(let client): try request(client, .itemAdd, ["query": .dictionary(attributes)])
        case .inProcess(let keychain, _): try keychain.add(attributes, caller: caller)
        }
    }

    public func copyMatching(_ query: KeychainDictionary) throws(KeychainError) -> KeychainValue? {
        switch backend {
        case .daemon(let client): try request(client, .itemCopyMatching, ["query": .dictionary(query)])
        case .inProcess(let keychain, _): try keychain.copyMatching(query, caller: caller)
        }
    }

    public func update(_ query: KeychainDictionary, _ attributes: KeychainDictionary) throws(KeychainError) {
        switch backend {
        case .daemon(let client): _ = try request(client, .itemUpdate, ["query": .dictionary(query), "attributes": .dictionary(attributes)])
        case .inProcess(let keychain, _): try keychain.update(query, attributes, caller: caller)
        }
    }

    public func delete(_ query: KeychainDictionary) throws(KeychainError) {
        switch backend {
        case .daemon(let client): _ = try request(client, .itemDelete, ["query": .dictionary(query)])
        case .inProcess(let keychain, _): try keychain.delete(query, caller: caller)
        }
    }

    /// A simulated Secure Enclave request (see `Keychain.secureEnclave`), where the vault's engine runs.
    public func secureEnclave(_ request: KeychainDictionary) throws(KeychainError) -> KeychainValue? {
        switch backend {
        case .daemon(let client): try self.request(client, .keySecureEnclave, ["request": .dictionary(request)])
        case .inProcess(let keychain, _): try keychain.secureEnclave(request, caller: caller)
        }
    }

    private func request(_ client: ControlClient, _ command: ControlCommand, _ arguments: KeychainDictionary) throws(KeychainError) -> KeychainValue? {
        var arguments = arguments
        arguments["accessGroups"] = .array(caller.accessGroups.map(KeychainValue.string))
        return try client.send(ControlRequest(command, arguments)).check()
    }
}

/// Which vault and which access groups a client uses when it is not told (SPEC §2, §6).
public enum ClientEnvironment {
    /// `$KEYCHAIN_VAULT`, else `$XDG_DATA_HOME/keychainfs/default` (`~/.local/share/keychainfs/default`).
    public static func defaultVault(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Vault {
        if let vault = environment["KEYCHAIN_VAULT"], !vault.isEmpty { return Vault(directory: vault) }
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return Vault(directory: data + "/keychainfs/default")
    }

    /// `$KEYCHAIN_ACCESS_GROUPS` (comma-separated), else `["default"]`.
    public static func caller(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Caller {
        let groups = (environment["KEYCHAIN_ACCESS_GROUPS"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return Caller(accessGroups: groups.isEmpty ? Caller.defaultAccessGroups : groups)
    }
}
