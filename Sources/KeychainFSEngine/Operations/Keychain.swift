import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium
import Synchronization

/// The keychain engine for one open vault: SecItemAdd / CopyMatching / Update / Delete with Apple's
/// data-protection semantics, and the device-lock simulator. It knows nothing of FUSE or paths.
///
/// Every operation and every device command runs under one lock, so a command that changes the
/// lock state is in force for every call that starts after it returns.
public final class Keychain: Sendable {
    /// The vault this keychain serves.
    public let vault: Vault
    package let store: ItemStore
    package let hasher: LookupHasher
    let deviceKey: GuardedKey
    /// Where the device key came from: its file, or the TPM that sealed it (`keychainfs status`).
    package let deviceKeyOrigin: String
    /// The TPM of a vault made with `--tpm`: it holds the passcode's share too (``PasscodeShare``).
    let deviceKeyTPM: TPMBinding?
    package let protection: Mutex<Keybag>
    let autoLockGeneration = Mutex<Int>(0)
    /// Held through every passcode attempt and change (see DeviceCommands): one Argon2id at a time.
    let passcodeGate = NSLock()
    private let changes = Atomic<UInt64>(0)
    let rows = RowCache()
    /// The rows recent lookups found, by filter, for one generation (``MatchKey``): emptied at every change.
    package let recentMatches = GenerationalCache<MatchKey, [Data]>(capacity: 4096)
    /// Authentication prompts waiting for an answer (docs/spec.md §11).
    public let prompts: PromptQueue
    /// Where the keychain reads the time and runs its timers (a test device's is virtual).
    public let clock: any KeychainClock
    let evaluations = EvaluatedContexts()
    private let observers = Mutex<[@Sendable (Change) -> Void]>([])
    /// Who hears what the keychain does (``addEventListener(_:)``), and the device state they last heard.
    let eventListeners = EventListeners()

    /// What changed, for change observers.
    public enum Change: Sendable, Equatable {
        /// Items were added, updated or deleted. `changed`: the persistent references of the items whose
        /// attributes or secret changed or that are gone (no observer holds an item not yet added, so an add
        /// names none); nil when unknown, meaning any item may have changed.
        case items(changed: [Data]?)
        /// Only the secrets of these items changed (and their modification dates): every item keeps the
        /// attributes that name and place it, so the filesystem keeps their directory entries and drops only
        /// what they hold (measured: an entry dropped after each write of a value cost the next creation a
        /// request for the service's attributes).
        case secrets(changed: [Data])
        /// The device state changed (lock, unlock, reboot, passcode): availability may differ.
        case device
    }

    /// Opens the vault at `vault`. The device starts before its first unlock if a passcode is set
    /// (a daemon start is a boot), unlocked otherwise. `clock` is the time the keychain follows.
    public init(vault: Vault, deviceKeyPath: String? = nil, clock: any KeychainClock = WallClock())
        throws(KeychainError)
    {
        self.vault = vault
        self.clock = clock
        prompts = PromptQueue(clock: clock)
        try vault.checkPrivate()
        let config = try vault.config()
        if config.testDevice { CrashPoint.enableForTestDevice() }
        (deviceKey, deviceKeyOrigin) = try vault.openDeviceKey(override: deviceKeyPath)
        deviceKeyTPM = config.deviceKeyTPM
        let keybag = try Keybag.opening(vault.keybagPath, deviceKey: deviceKey, deviceKeyOrigin: deviceKeyOrigin)
        if keybag.record.hardness == .simulated && !clock.isVirtual {
            throw KeychainError(
                SecStatus.param,
                "this vault is a KeychainTesting device's (its passcode derivation is the test-only minimum): it opens only in the test kit"
            )
        }
        hasher = LookupHasher(indexKey: keybag.indexKey)
        protection = Mutex(keybag)
        store = try ItemStore(path: vault.databasePath, testDevice: config.testDevice)
        try finishOpening(config)
    }

    /// Rejects callers without access groups (docs/reference/keychain-semantics.md §4.1 #2).
    static func requireGroups(_ caller: Caller) throws(KeychainError) {
        guard !caller.accessGroups.isEmpty else {
            throw .missingEntitlement("the caller has no keychain access groups")
        }
    }

    static func requireEntitled(_ group: KeychainValue, _ caller: Caller) throws(KeychainError) {
        guard let name = group.stringValue, caller.accessGroups.contains(name) else {
            throw .missingEntitlement("the caller is not entitled to the requested access group")
        }
    }

    /// Increases whenever an item or the device state may have changed: caches of what the keychain
    /// holds (the filesystem's path cache) are valid while it stays the same.
    public var generation: UInt64 { changes.load(ordering: .acquiring) }

    /// Calls `observer` after every change of an item or of the device state, so that whoever caches
    /// what the keychain holds drops it at once (nothing decrypted outlives a lock).
    public func addChangeObserver(_ observer: @escaping @Sendable (Change) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    /// Returns the generation the change began.
    @discardableResult
    package func noteChange(_ change: Change = .items(changed: nil)) -> UInt64 {
        if change == .device, protection.withLock({ $0.state == .locked || $0.state == .beforeFirstUnlock }) {
            evaluations.dropUntilLock()
        }
        if change == .device { reportDeviceState() }
        let generation = changes.add(1, ordering: .releasing).newValue
        rows.clear(after: generation)
        recentMatches.removeAll(olderThan: generation)
        for observer in observers.withLock({ $0 }) { observer(change) }
        return generation
    }

    /// Whether items of `accessibility` are available right now: the cheap lock check for a reader that
    /// already holds a secret it read a moment ago.
    public func isAvailable(_ accessibility: Accessibility) -> Bool {
        protection.withLock { $0.state.allows(accessibility) }
    }

    /// Current time, as the keychain stamps it: its clock's.
    func now() -> Date { clock.now() }
}
