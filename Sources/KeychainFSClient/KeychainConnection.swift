import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel
import Synchronization

/// The SecItem calls (and LAContext's) on a vault, wherever its engine runs (``VaultRoute``): through the
/// daemon that serves it (so its device lock applies), or in this process when no daemon runs (Apple's
/// securityd has one engine per device; here one per vault, enforced by ``VaultLock``).
///
/// An in-process engine holds the vault's lock file for one call only (``InProcessEngines``), so it never
/// keeps the vault from a daemon that wants to mount it.
package final class KeychainConnection: Sendable {
    /// How long a call waits for a daemon that is away (restarting) before errSecNotAvailable.
    package static let daemonGraceSeconds = VaultRoute.daemonGraceSeconds

    private let route: VaultRoute
    /// An engine this connection's owner keeps open (a simulated device's): every call goes to it, never to a daemon.
    private let ownedEngine: Keychain?
    package let caller: Caller
    package let vault: Vault

    /// Connects to `vault`'s daemon, or checks that it can be opened in-process. `createIfMissing` makes a
    /// vault without a passcode on first use.
    package init(vault: Vault, caller: Caller, createIfMissing: Bool = false) throws(KeychainError) {
        self.vault = vault
        self.caller = caller
        route = VaultRoute(vault: vault)
        ownedEngine = nil
        if route.probe() { return }
        if !vault.exists {
            guard createIfMissing else { throw KeychainError(SecStatus.notAvailable, "no vault at \(vault.directory)") }
            _ = try Vault.create(at: vault.directory)
        }
        _ = try InProcessEngines.shared.with(vault) { _ throws(KeychainError) in () }
    }

    /// Calls straight into `engine`, which its owner keeps open: its in-memory lock state, prompts and
    /// biometry are the ones in force (a reopened engine would start before first unlock).
    package init(engine: Keychain, caller: Caller) {
        vault = engine.vault
        self.caller = caller
        route = VaultRoute(vault: engine.vault)
        ownedEngine = engine
    }

    /// Whether calls go to a daemon (the last call did, or, before any call, one was serving).
    package var viaDaemon: Bool { route.viaDaemon }

    package func add(_ attributes: KeychainDictionary) throws(KeychainError) -> KeychainValue? {
        try perform(ItemAdd(query: attributes))
    }

    package func copyMatching(_ query: KeychainDictionary) throws(KeychainError) -> KeychainValue? {
        try perform(ItemCopyMatching(query: query))
    }

    package func update(_ query: KeychainDictionary, _ attributes: KeychainDictionary) throws(KeychainError) {
        try perform(ItemUpdate(query: query, attributes: attributes))
    }

    package func delete(_ query: KeychainDictionary) throws(KeychainError) {
        try perform(ItemDelete(query: query))
    }

    /// SecItemAdd of an identity: its certificate and private key in one transaction, wherever the engine runs.
    package func addIdentity(certificate: KeychainDictionary, key: KeychainDictionary) throws(KeychainError) {
        try perform(ItemAddIdentity(certificate: certificate, key: key))
    }

    /// A simulated Secure Enclave request (see `Keychain.secureEnclave`), wherever the vault's engine runs.
    package func secureEnclave(_ request: KeychainDictionary) throws(KeychainError) -> KeychainValue? {
        try perform(SecureEnclaveCall(operation: request))
    }

    /// This process's executable, named in authentication prompts: read once, not at every call.
    private static let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")

    /// One call (its codec shared with the daemon, what it does written once in the call), on the owned
    /// engine, else wherever the vault's engine runs, with what this client says about itself.
    package func perform<Call: EngineCall>(_ call: Call) throws(KeychainError) -> Call.Reply {
        if let ownedEngine { return try call.perform(on: ownedEngine, caller: caller) }
        // No daemon serves a vault whose lock this process can take: a daemon holds it for as long as it
        // serves (KeychainFSDaemon's Daemon.run takes it before its socket exists, lets go after it closed).
        // So the socket is asked only when the lock is held, or once a daemon was used (measured: the
        // connect was a tenth of an in-process call); a daemon that starts later takes the lock between
        // two calls, and the next call finds it held and goes through the route to the daemon.
        if !route.viaDaemon,
            let reply = try InProcessEngines.shared.withIfFree(
                vault, { keychain throws(KeychainError) in try call.perform(on: keychain, caller: caller) })
        {
            return reply
        }
        var claims: KeychainDictionary = [
            CallerClaims.accessGroups: .array(caller.accessGroups.map(KeychainValue.string))
        ]
        // Named in authentication prompts (`keychainfs device prompts`).
        claims[CallerClaims.pid] = .number(Int64(getpid()))
        if let executable = Self.executable { claims[CallerClaims.executable] = .string(executable) }
        // The route waits for a vault another process holds in short slices, so a daemon that is starting
        // (it takes the vault's lock before its socket exists) gets the call as soon as it can answer.
        return try route.perform(call, claims: claims) { () throws(KeychainError) -> Call.Reply in
            try InProcessEngines.shared.with(vault, patience: VaultRoute.holderSliceSeconds) {
                keychain throws(KeychainError) in try call.perform(on: keychain, caller: caller)
            }
        }
    }
}

/// This process's in-process engines, one per vault. The vault's lock file is held for one call at a
/// time, never between calls, so a daemon can always take the vault over (``VaultCallLock``, its file kept
/// open). The engine itself is kept while nobody else has held the vault since, and opened afresh
/// otherwise: reopening per call costs a SQLite open and close with its WAL checkpoint (measured: 25 ms per
/// call in a debug build against 1 ms with the engine kept).
final class InProcessEngines: @unchecked Sendable {
    static let shared = InProcessEngines()
    /// One in-process call at a time in this process (the lock file is per open file, so two threads of
    /// one process would otherwise refuse each other).
    private let gate = NSLock()
    private var vaults: [String: (lock: VaultCallLock, keychain: Keychain?)] = [:]
    /// How long a call waits for another process's call on the same vault (an unlock's Argon2id is ~0.6 s).
    static let patience: TimeInterval = 10

    /// `body` on the vault's engine, waiting up to `patience` seconds for another process to let go of it.
    func with<T>(_ vault: Vault, patience: TimeInterval = patience, _ body: (Keychain) throws(KeychainError) -> T)
        throws(KeychainError) -> T
    {
        gate.lock()
        defer { gate.unlock() }
        // Another process's in-process call holds the vault for that call: wait for it (two scripts using one
        // vault without a daemon were refused at once, errSecNotAvailable, whenever their calls met).
        return try run(body, vault, patience: patience)!
    }

    /// ``with(_:_:)`` if the vault's lock is free right now, else nil (another process holds it: a daemon,
    /// or another process's call), without waiting and without running `body`.
    func withIfFree<T>(_ vault: Vault, _ body: (Keychain) throws(KeychainError) -> T) throws(KeychainError) -> T? {
        gate.lock()
        defer { gate.unlock() }
        return try run(body, vault, patience: nil)
    }

    /// `body` on the vault's engine with its lock held; nil if `patience` is nil and the lock is not free.
    private func run<T>(_ body: (Keychain) throws(KeychainError) -> T, _ vault: Vault, patience: TimeInterval?)
        throws(KeychainError) -> T?
    {
        let lock = vaults[vault.directory]?.lock ?? VaultCallLock(vault)
        let current: Bool
        if let patience {
            current = try lock.take(patience: patience)
        } else {
            guard let taken = try? lock.take(patience: 0) else { return nil }
            current = taken
        }
        defer { lock.release() }
        let keychain: Keychain
        if current, let kept = vaults[vault.directory]?.keychain {
            keychain = kept
        } else {
            vaults[vault.directory] = (lock, nil)
            keychain = try Keychain(vault: vault)
        }
        vaults[vault.directory] = (lock, keychain)
        return try body(keychain)
    }
}

/// Which vault and which access groups a client uses when it is not told (docs/spec.md §2, §6).
package enum ClientEnvironment {
    /// `$KEYCHAIN_VAULT`, else `$XDG_DATA_HOME/keychainfs/default` (`~/.local/share/keychainfs/default`).
    package static func defaultVault(_ environment: [String: String]) -> Vault { defaultVault { environment[$0] } }

    /// ``defaultVault(_:)`` of this process's environment, read variable by variable: every SecItem call
    /// asks, and `ProcessInfo.environment` copies the whole environment into a dictionary each time
    /// (measured: a third of what the `Security` module added to an engine call).
    package static func defaultVault() -> Vault {
        let path = defaultVaultPath(variable)
        // A relative path depends on the working directory: made afresh each time.
        guard path.hasPrefix("/") else { return Vault(directory: path) }
        if let last = lastVault.withLock({ $0 }), last.path == path { return last.vault }
        let vault = Vault(directory: path)
        lastVault.withLock { $0 = (path, vault) }
        return vault
    }

    /// The default vault last made, by the path it was made from: `Vault(directory:)` standardizes the path
    /// through `URL`, the largest part of what the `Security` module added to each call once the environment
    /// was read variable by variable.
    private static let lastVault = Mutex<(path: String, vault: Vault)?>(nil)

    /// `$KEYCHAIN_ACCESS_GROUPS` (comma-separated), else `["default"]`.
    package static func caller(_ environment: [String: String]) -> Caller { caller { environment[$0] } }

    /// ``caller(_:)`` of this process's environment (see ``defaultVault()``).
    package static func caller() -> Caller { caller(variable) }

    private static func defaultVault(_ environment: (String) -> String?) -> Vault {
        Vault(directory: defaultVaultPath(environment))
    }

    private static func defaultVaultPath(_ environment: (String) -> String?) -> String {
        if let vault = environment("KEYCHAIN_VAULT"), !vault.isEmpty { return vault }
        let data =
            environment("XDG_DATA_HOME").flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment("HOME") ?? NSHomeDirectory()) + "/.local/share"
        return data + "/keychainfs/default"
    }

    private static func caller(_ environment: (String) -> String?) -> Caller {
        let groups = (environment("KEYCHAIN_ACCESS_GROUPS") ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        return Caller(accessGroups: groups.isEmpty ? Caller.defaultAccessGroups : groups)
    }

    private static func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}
