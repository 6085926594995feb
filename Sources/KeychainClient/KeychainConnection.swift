import ControlChannel
import Foundation
import KeychainEngine
import KeychainModel
import Synchronization

/// The four SecItem calls on a vault, wherever its engine runs: through the daemon that serves it
/// (so its device lock applies), or in this process when no daemon runs (Apple's securityd has one
/// engine per device; here one per vault, enforced by ``VaultLock``).
///
/// The choice is made per call. An in-process engine holds the vault's lock file for one call only
/// (``InProcessEngines``), so it never keeps the vault from a daemon that wants to mount it. A connection that has
/// once reached a daemon never falls back to an in-process engine: the daemon's lock state is the one in
/// force. While its daemon is away it waits up to ``daemonGraceSeconds`` for one, then answers
/// errSecNotAvailable.
public final class KeychainConnection: Sendable {
    /// How long a call waits for a daemon that is away (restarting) before errSecNotAvailable.
    public static let daemonGraceSeconds: TimeInterval = 3

    private let client: ControlClient
    private let usedDaemon: Mutex<Bool>
    /// An engine this connection's owner keeps open (a simulated device's): every call goes to it, never to a daemon.
    private let ownedEngine: Keychain?
    public let caller: Caller
    public let vault: Vault

    /// Connects to `vault`'s daemon, or checks that it can be opened in-process. `createIfMissing` makes a
    /// vault without a passcode on first use.
    public init(vault: Vault, caller: Caller, createIfMissing: Bool = false) throws(KeychainError) {
        self.vault = vault
        self.caller = caller
        client = ControlClient(vault: vault)
        ownedEngine = nil
        let served = client.isDaemonRunning
        usedDaemon = Mutex(served)
        if served { return }
        if !vault.exists {
            guard createIfMissing else { throw KeychainError(SecStatus.notAvailable, "no vault at \(vault.directory)") }
            _ = try Vault.create(at: vault.directory)
        }
        _ = try withInProcessEngine { _ throws(KeychainError) in () }
    }

    /// Calls straight into `engine`, which its owner keeps open: its in-memory lock state, prompts and
    /// biometry are the ones in force (a reopened engine would start before first unlock).
    public init(engine: Keychain, caller: Caller) {
        vault = engine.vault
        self.caller = caller
        client = ControlClient(vault: engine.vault)
        usedDaemon = Mutex(false)
        ownedEngine = engine
    }

    /// Whether calls go to a daemon (the last call did, or, before any call, one was serving).
    public var viaDaemon: Bool { usedDaemon.withLock { $0 } }

    public func add(_ attributes: KeychainDictionary) throws(KeychainError) -> KeychainValue? {
        try perform(ItemAdd(query: attributes)) { keychain throws(KeychainError) in
            try keychain.add(attributes, caller: caller)
        }
    }

    public func copyMatching(_ query: KeychainDictionary) throws(KeychainError) -> KeychainValue? {
        try perform(ItemCopyMatching(query: query)) { keychain throws(KeychainError) in
            try keychain.copyMatching(query, caller: caller)
        }
    }

    public func update(_ query: KeychainDictionary, _ attributes: KeychainDictionary) throws(KeychainError) {
        try perform(ItemUpdate(query: query, attributes: attributes)) { keychain throws(KeychainError) in
            try keychain.update(query, attributes, caller: caller)
        }
    }

    public func delete(_ query: KeychainDictionary) throws(KeychainError) {
        try perform(ItemDelete(query: query)) { keychain throws(KeychainError) in
            try keychain.delete(query, caller: caller)
        }
    }

    /// SecItemAdd of an identity: its certificate and private key in one transaction, wherever the engine runs.
    public func addIdentity(certificate: KeychainDictionary, key: KeychainDictionary) throws(KeychainError) {
        try perform(ItemAddIdentity(certificate: certificate, key: key)) { keychain throws(KeychainError) in
            try keychain.addIdentity(certificate: certificate, key: key, caller: caller)
        }
    }

    /// A simulated Secure Enclave request (see `Keychain.secureEnclave`), wherever the vault's engine runs.
    public func secureEnclave(_ request: KeychainDictionary) throws(KeychainError) -> KeychainValue? {
        try perform(SecureEnclaveCall(operation: request)) { keychain throws(KeychainError) in
            try keychain.secureEnclave(request, caller: caller)
        }
    }

    /// One of the authentication simulator's commands (LAContext's evaluations), wherever the engine runs.
    public func authentication(_ command: ControlCommand, _ arguments: KeychainDictionary) throws(KeychainError)
        -> KeychainValue?
    {
        try perform(command, arguments) { keychain throws(KeychainError) in
            try AuthenticationCommands(keychain: keychain).perform(command, arguments, caller: caller)
        }
    }

    /// This process's executable, named in authentication prompts: read once, not at every call.
    private static let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")

    /// One typed call (its codec is shared with the daemon), wherever the vault's engine runs.
    private func perform<Call: ControlCall>(_ call: Call, inProcess: (Keychain) throws(KeychainError) -> Call.Reply)
        throws(KeychainError) -> Call.Reply
    {
        if let ownedEngine { return try inProcess(ownedEngine) }
        var reply: Call.Reply?
        let value = try perform(Call.command, call.arguments) { keychain throws(KeychainError) -> KeychainValue? in
            let local = try inProcess(keychain)
            reply = local
            return nil
        }
        if let reply { return reply }
        return try Call.decode(value)
    }

    /// One call: to the daemon if one listens, else in-process (unless a daemon was used before, or one is
    /// starting and holds the vault), waiting a little for a daemon that is away.
    private func perform(
        _ command: ControlCommand, _ arguments: KeychainDictionary,
        inProcess: (Keychain) throws(KeychainError) -> KeychainValue?
    ) throws(KeychainError) -> KeychainValue? {
        if let ownedEngine { return try inProcess(ownedEngine) }
        // No daemon serves a vault whose lock this process can take: a daemon holds it for as long as it
        // serves (KeychainDaemon's Daemon.run takes it before its socket exists, lets go after it closed).
        // So the socket is asked only when the lock is taken, or once a daemon was used; a daemon that
        // starts later takes the lock between two calls, and the next call finds it held and asks it.
        if !usedDaemon.withLock({ $0 }), let value = try InProcessEngines.shared.withIfFree(vault, inProcess) {
            return value
        }
        var arguments = arguments
        arguments[CallerClaims.accessGroups] = .array(caller.accessGroups.map(KeychainValue.string))
        // Named in authentication prompts (`keychainfs device prompts`).
        arguments[CallerClaims.pid] = .number(Int64(getpid()))
        if let executable = Self.executable { arguments[CallerClaims.executable] = .string(executable) }
        let request = ControlRequest(command, arguments)
        let deadline = Date().addingTimeInterval(Self.daemonGraceSeconds)
        while true {
            if let response = try client.sendIfServed(request) {
                usedDaemon.withLock { $0 = true }
                return try response.check()
            }
            if !usedDaemon.withLock({ $0 }) {
                do { return try withInProcessEngine(inProcess) } catch
                    where Date() < deadline && VaultLock.isHeld(vault)
                {
                    // Another process holds the vault: most likely a daemon starting up; its socket follows.
                }
            }
            guard Date() < deadline else {
                throw KeychainError(
                    SecStatus.notAvailable,
                    "the keychainfs daemon serving \(vault.directory) has gone away and none came back within \(Int(Self.daemonGraceSeconds)) s"
                )
            }
            usleep(50_000)
        }
    }

    private func withInProcessEngine<T>(_ body: (Keychain) throws(KeychainError) -> T) throws(KeychainError) -> T {
        try InProcessEngines.shared.with(vault, body)
    }
}

/// This process's in-process engines, one per vault. The vault's lock file is held for one call at a
/// time, never between calls, so a daemon can always take the vault over. The engine itself is kept
/// while nobody else has held the vault since (``VaultLock/previousToken``), and opened afresh otherwise:
/// reopening per call costs a SQLite open and close with its WAL checkpoint (measured: 25 ms per call in
/// a debug build against 1 ms with the engine kept).
final class InProcessEngines: @unchecked Sendable {
    static let shared = InProcessEngines()
    /// One in-process call at a time in this process (the lock file is per open file, so two threads of
    /// one process would otherwise refuse each other).
    private let gate = NSLock()
    private var engines: [String: (keychain: Keychain, token: UInt64)] = [:]
    /// How long a call waits for another process's call on the same vault (an unlock's Argon2id is ~0.6 s).
    static let patience: TimeInterval = 10

    func with<T>(_ vault: Vault, _ body: (Keychain) throws(KeychainError) -> T) throws(KeychainError) -> T {
        gate.lock()
        defer { gate.unlock() }
        // Another process's in-process call holds the vault for that call: wait for it (two scripts using one
        // vault without a daemon were refused at once, errSecNotAvailable, whenever their calls met).
        return try run(body, vault, try VaultLock(vault, patience: Self.patience))
    }

    /// ``with(_:_:)`` if the vault's lock is free right now, else nil (another process holds it: a daemon,
    /// or another process's call), without waiting and without running `body`.
    func withIfFree<T>(_ vault: Vault, _ body: (Keychain) throws(KeychainError) -> T) throws(KeychainError) -> T? {
        gate.lock()
        defer { gate.unlock() }
        guard let lock = try? VaultLock(vault, patience: 0) else { return nil }
        return try run(body, vault, lock)
    }

    private func run<T>(_ body: (Keychain) throws(KeychainError) -> T, _ vault: Vault, _ lock: VaultLock)
        throws(KeychainError) -> T
    {
        let keychain: Keychain
        if let cached = engines[vault.directory], cached.token == lock.previousToken {
            keychain = cached.keychain
        } else {
            engines[vault.directory] = nil
            keychain = try Keychain(vault: vault)
        }
        engines[vault.directory] = (keychain, lock.token)
        return try withExtendedLifetime(lock) { () throws(KeychainError) -> T in try body(keychain) }
    }
}

/// Which vault and which access groups a client uses when it is not told (docs/spec.md §2, §6).
public enum ClientEnvironment {
    /// `$KEYCHAIN_VAULT`, else `$XDG_DATA_HOME/keychainfs/default` (`~/.local/share/keychainfs/default`).
    public static func defaultVault(_ environment: [String: String]) -> Vault { defaultVault { environment[$0] } }

    /// ``defaultVault(_:)`` of this process's environment, read variable by variable: every SecItem call
    /// asks, and `ProcessInfo.environment` copies the whole environment into a dictionary each time (issue
    /// 27: a third of what the `Security` module added to an engine call).
    public static func defaultVault() -> Vault {
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
    public static func caller(_ environment: [String: String]) -> Caller { caller { environment[$0] } }

    /// ``caller(_:)`` of this process's environment (see ``defaultVault()``).
    public static func caller() -> Caller { caller(variable) }

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
