import KeychainFSModel
import Foundation
import KeychainFSSodium
import KeychainFSTPM

/// A vault directory (docs/spec.md §1): the item database, the keybag and the config. The device key lives
/// outside it (``DeviceKeyLocation``), so the directory alone is unreadable; vaults of format 1 kept it inside.
public struct Vault: Sendable {
    /// Persistent settings chosen at `init`.
    public struct Config: Codable, Sendable {
        /// The vault format (``VaultFormat``).
        public var format = VaultFormat.current
        /// Where the device key lives; nil: inside the vault (`device.key`), as format 1 made it, unless
        /// ``deviceKeyTPM`` says a TPM seals it.
        public var deviceKeyPath: String?
        /// The TPM that seals the device key (`device-key.tpm` in the vault; docs/tpm.md); nil: a file. It
        /// wins over ``deviceKeyPath``, which then names a file `sealDeviceKey(with:)` has yet to remove.
        package var deviceKeyTPM: TPMBinding?
        /// The X25519 public key of the recovery key (docs/tpm.md, Recovery): a passcode's TPM share is
        /// sealed to it too, so that a recovery onto another TPM keeps classes A and C.
        package var recoveryPublicKey: Data?
        /// A keyed hash of ``recoveryPublicKey`` under the device key: one planted in vault.json (to have the
        /// next passcode's share sealed to an attacker's key) is refused.
        package var recoveryPublicKeyTag: Data?
        public var testDevice: Bool

        package init(
            format: Int = VaultFormat.current, deviceKeyPath: String?, deviceKeyTPM: TPMBinding? = nil,
            testDevice: Bool
        ) {
            self.format = format; self.deviceKeyPath = deviceKeyPath; self.deviceKeyTPM = deviceKeyTPM
            self.testDevice = testDevice
        }
    }

    /// Absolute path of the vault directory.
    public let directory: String

    public init(directory: String) {
        self.directory = URL(fileURLWithPath: directory).standardizedFileURL.path
    }

    public var configPath: String { directory + "/vault.json" }
    public var keybagPath: String { directory + "/keybag" }
    public var databasePath: String { directory + "/items.sqlite" }
    public var defaultDeviceKeyPath: String { directory + "/device.key" }
    /// The TPM-sealed device key of a vault made with `--tpm`: useless without that TPM.
    public var sealedDeviceKeyPath: String { directory + "/device-key.tpm" }
    /// The daemon's log (no secrets are ever logged).
    public var logPath: String { directory + "/daemon.log" }

    /// Opens (creating 0600) the daemon's log for appending: never through a symlink, never blocking on a
    /// FIFO, a regular file only (docs/security.md). The caller closes the descriptor.
    public func openLog() throws(KeychainError) -> Int32 {
        try FileIO.openRegular(logPath, flags: O_WRONLY | O_CREAT | O_APPEND, mode: 0o600)
    }
    /// The lock file that makes one engine per vault (``VaultLock``).
    public var lockPath: String { directory + "/daemon.lock" }

    /// Whether `directory` holds a vault (a symlink at `vault.json` counts: it is never followed or replaced).
    public var exists: Bool {
        var st = stat()
        return lstat(configPath, &st) == 0
    }

    /// Creates a new vault: directory (0700), device key (0600, in the user's state directory unless
    /// `deviceKeyPath` chooses, or sealed by the TPM `tpm` names, inside the vault), keybag, database.
    /// The device starts without a passcode. Every file is made fresh (O_EXCL) and private (0600).
    /// `simulatedDevice` (KeychainTesting's, implies `testDevice`) marks the keybag with the minimal
    /// passcode derivation, which only an engine on a virtual clock opens.
    package static func create(
        at directory: String, deviceKeyPath: String? = nil, tpm: TPMBinding? = nil, testDevice: Bool = false,
        simulatedDevice: Bool = false
    ) throws(KeychainError) -> Vault {
        if tpm != nil && deviceKeyPath != nil {
            throw .param("a device key sealed by the TPM lives in the vault: --device-key and --tpm exclude each other")
        }
        let testDevice = testDevice || simulatedDevice
        let vault = Vault(directory: directory)
        guard !vault.exists else { throw .param("a vault already exists at \(vault.directory)") }
        // A simulated device's files, in its own fresh directory, skip fsync (ThrowawayDirectories).
        if simulatedDevice {
            ThrowawayDirectories.add(throwawayDirectories(directory, deviceKeyPath ?? directory + "/device.key"))
        }
        // A missing TPM fails here, before anything is made.
        if let tpm { _ = try TPMConnection(tcti: tpm.tctiInForce) }
        try VaultDirectory.makePrivate(vault.directory)
        var keyPath: String?
        let deviceKey: GuardedKey
        if let tpm {
            deviceKey = GuardedKey.random()
            try SealedDeviceKey.write(deviceKey, binding: tpm, to: vault.sealedDeviceKeyPath)
        } else {
            let path: String
            if let deviceKeyPath {
                path = URL(fileURLWithPath: deviceKeyPath).standardizedFileURL.path
            } else {
                path = try DeviceKeyLocation.newDefaultPath()
            }
            try DeviceKey.create(at: path)
            deviceKey = try DeviceKey.load(from: path)
            keyPath = path
        }
        defer { deviceKey.wipe() }
        try Keybag.create(
            at: vault.keybagPath, deviceKey: deviceKey,
            hardness: simulatedDevice ? .simulated : testDevice ? .interactive : .moderate, testDevice: testDevice)
        // SQLite gives -wal and -shm the database file's mode: make it 0600 before SQLite sees it.
        try FileIO.createExclusively(vault.databasePath, mode: 0o600)
        _ = try ItemStore(path: vault.databasePath)
        try vault.save(Config(deviceKeyPath: keyPath, deviceKeyTPM: tpm, testDevice: testDevice))
        return vault
    }

    /// Refuses a vault others could tamper with (a directory not ours or writable by others, a symlink
    /// where SQLite would follow one) and makes a missing database file 0600 before SQLite creates it.
    public func checkPrivate() throws(KeychainError) {
        try VaultDirectory.checkPrivate(directory)
        for path in [databasePath, databasePath + "-wal", databasePath + "-shm", databasePath + "-journal"] {
            try VaultDirectory.checkRegularFile(path)
        }
        var st = stat()
        if lstat(databasePath, &st) != 0, errno == ENOENT { try FileIO.createExclusively(databasePath, mode: 0o600) }
    }

    /// Reads the vault's config.
    public func config() throws(KeychainError) -> Config {
        guard let data = try FileIO.read(configPath) else {
            throw KeychainError(
                SecStatus.notAvailable,
                "\(directory) is not a keychainfs vault (no vault.json); create one with 'keychainfs init'")
        }
        let config: Config
        do { config = try JSONDecoder().decode(Config.self, from: data) } catch {
            throw KeychainError(
                SecStatus.decode, "\(configPath) is damaged or truncated (not a vault config): restore it from a backup"
            )
        }
        try VaultFormat.check(config.format, at: configPath)
        return config
    }

    /// Whether the device key in force is the one inside the vault directory (a format-1 default): then a
    /// copy of the directory opens anywhere, and `keychainfs move-device-key` should move it out.
    public func deviceKeyIsInside(override: String? = nil) throws(KeychainError) -> Bool {
        guard override == nil else { return false }
        let config = try config()
        return config.deviceKeyPath == nil && config.deviceKeyTPM == nil
    }

    /// The device key in force (an explicit file, the TPM's, the config's file or the default) and where it
    /// came from, for messages.
    package func openDeviceKey(override: String? = nil) throws(KeychainError) -> (key: GuardedKey, origin: String) {
        if override == nil, let tpm = try config().deviceKeyTPM {
            return (try SealedDeviceKey.load(binding: tpm, from: sealedDeviceKeyPath), "sealed by \(tpm.summary)")
        }
        let path = try deviceKeyPath(override: override)
        return (try DeviceKey.load(from: path), path)
    }

    /// Where the device key is, as `init` and `status` say it.
    public func deviceKeyOrigin(override: String? = nil) throws(KeychainError) -> String {
        if override == nil, let tpm = try config().deviceKeyTPM { return "sealed by \(tpm.summary)" }
        return try deviceKeyPath(override: override)
    }

    /// The device key path in force: an explicit override, the config's, or the default.
    public func deviceKeyPath(override: String? = nil) throws(KeychainError) -> String {
        if let override { return override }
        return try config().deviceKeyPath ?? defaultDeviceKeyPath
    }

    package func save(_ config: Config) throws(KeychainError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(config) else {
            throw KeychainError(SecStatus.internalError, "cannot encode the vault config")
        }
        try FileIO.writeAtomically(data, to: configPath, mode: 0o600)
    }
}
