import ArgumentParser
import KeychainFSEngine
import KeychainFSModel

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Create a vault: item database, keybag and device key.")

    @Argument(help: "The vault directory to create.")
    var vault: String

    @Option(
        help:
            "Keep the device key in this file (default: a new file in $XDG_STATE_HOME/keychainfs or ~/.local/state/keychainfs); the vault directory alone is unreadable without it."
    )
    var deviceKey: String?

    @Flag(
        help:
            "Seal the device key with the TPM 2.0 (docs/tpm.md): it exists on disk only TPM-wrapped, inside the vault, and the vault opens only on this machine."
    )
    var tpm = false

    @OptionGroup var tpmOptions: TPMOptions

    @Flag(help: "A test device: wrong passcodes never lock unlocking out, and Argon2id uses its interactive limits.")
    var testDevice = false

    func validate() throws {
        if !tpm && !tpmOptions.isEmpty {
            throw ValidationError("--tpm-tcti, --tpm-pcrs and --recovery-key go with --tpm")
        }
        try tpmOptions.validateForSealing()
    }

    /// Switched off (a test device only), `--tpm` makes an ordinary device key file: the test that a copied
    /// vault is refused on another TPM then fails (docs/tpm.md).
    static let sealSwitch = "tpm-seal"

    func run() throws {
        let sealed = tpm && !TestSwitches.isOff(Self.sealSwitch, testDevice: testDevice)
        let created = try Vault.create(
            at: vault, deviceKeyPath: deviceKey, tpm: sealed ? tpmOptions.binding : nil, testDevice: testDevice)
        print("created vault \(created.directory) (device key: \(try created.deviceKeyOrigin()); no passcode set)")
        try tpmOptions.writeRecoveryKey(for: created)
    }
}
