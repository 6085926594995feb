import KeychainFSControlChannel
import ArgumentParser
import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSSodium

/// `keychainfs backup FILE`: every item but the ThisDeviceOnly ones, sealed under a backup password.
struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract:
            "Write every item but the ThisDeviceOnly ones (and Secure Enclave keys) to FILE, sealed with a backup password (Argon2id).",
        discussion:
            "The vault must be mounted and its device unlocked. The file opens on any device with the password, as Apple's encrypted backups do."
    )

    @Argument(help: "The backup file to create (never overwritten).") var file: String
    @OptionGroup var address: DaemonAddress
    @Flag(help: "Read the backup password from standard input instead of prompting.") var passwordStdin = false

    func run() throws {
        var input = PasscodeInput(fromStdin: passwordStdin)
        var password = try input.newPasscode(prompt: "Backup password: ")
        defer { Sodium.wipe(&password) }
        let path = URL(fileURLWithPath: file).standardizedFileURL.path
        let archive = try address.call(BackupCall(password: password))
        try OutsideFile.create(archive.bytes, at: path)
        print("backed up \(archive.items) item(s) to \(path)")
    }
}

/// `keychainfs restore FILE [--merge]`.
struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract:
            "Restore a backup made by 'keychainfs backup' into an empty vault, or with --merge item by item (the newer item wins).",
        discussion: "The vault must be mounted and its device unlocked.")

    @Argument(help: "The backup file.") var file: String
    @OptionGroup var address: DaemonAddress
    @Flag(
        help:
            "Merge into a vault that has items: an item replaces the vault's copy only if its modification date is newer."
    ) var merge = false
    @Flag(help: "Read the backup password from standard input instead of prompting.") var passwordStdin = false

    func run() throws {
        // Read here, by the user who named it, before the password is asked for: a FIFO, a device or an
        // oversized file is refused at once.
        let archive = try OutsideFile.read(file, limit: Keychain.maxBackupBytes, what: "backup")
        var input = PasscodeInput(fromStdin: passwordStdin)
        var password = try input.next("Backup password: ")
        defer { Sodium.wipe(&password) }
        let outcome = try address.call(RestoreCall(archive: archive, password: password, merge: merge))
        print(
            "restored: \(outcome.added) added, \(outcome.replaced) replaced, \(outcome.kept) kept (the vault's copy was as new)"
        )
    }
}

/// `keychainfs move-device-key VAULT`: a vault made with its device key inside (the release of 2026-11-23)
/// opens from a copy of its directory alone; this moves the key to the user's state directory, or seals it
/// with the TPM (`--to-tpm`, docs/tpm.md).
struct MoveDeviceKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move-device-key",
        abstract:
            "Move a vault's device key out of the vault directory (to ~/.local/state/keychainfs/ unless --to), so a copied directory is unreadable; or seal it with the TPM (--to-tpm).",
        discussion: "The vault must not be mounted.")

    @Argument(help: "The vault directory.") var vault: String
    @Option(help: "The new device key file (must not exist).") var to: String?
    @Flag(help: "Seal the device key with the TPM 2.0 and remove its file: the vault then opens only on this machine.")
    var toTpm = false
    @Option(
        help: ArgumentHelp(
            "Seal a TPM vault's device key anew (after a changed boot state, or on another machine's TPM) from the recovery key in this file.",
            valueName: "recovery-key-file"))
    var recover: String?
    @Flag(help: "With --recover on a vault with a passcode: read the passcode from standard input.")
    var passcodeStdin = false
    @OptionGroup var tpmOptions: TPMOptions

    func validate() throws {
        if [toTpm, to != nil, recover != nil].filter({ $0 }).count > 1 {
            throw ValidationError("choose one of --to, --to-tpm and --recover")
        }
        if !toTpm && recover == nil && !tpmOptions.isEmpty {
            throw ValidationError("--tpm-tcti, --tpm-pcrs and --recovery-key go with --to-tpm or --recover")
        }
        if recover != nil && tpmOptions.recoveryKey != nil {
            throw ValidationError("--recover keeps the recovery key it is given: --recovery-key is for --to-tpm")
        }
        if toTpm { try tpmOptions.validateForSealing() }
    }

    func run() throws {
        let vault = Vault(directory: vault)
        if let recover {
            var input = PasscodeInput(fromStdin: passcodeStdin)
            let binding = try vault.resealDeviceKey(
                from: recover, tcti: tpmOptions.tpmTcti, pcrs: tpmOptions.tpmPcrs
            ) { try input.next("Passcode (its TPM share moves too): ") }
            print("device key sealed anew by \(binding.summary) from the recovery key")
            return
        }
        if toTpm {
            let removed = try vault.sealDeviceKey(with: tpmOptions.binding)
            print("device key sealed by \(tpmOptions.binding.summary); \(removed) removed")
            try tpmOptions.writeRecoveryKey(for: vault)
            return
        }
        let moved = try vault.moveDeviceKeyOut(to: to)
        print("device key moved to \(moved); keep it (and only it) safe: without it the vault is unreadable")
    }
}
