import ArgumentParser
import Foundation
import KeychainFSEngine

/// `--tpm-tcti` and `--tpm-pcrs`: which TPM seals a device key, and to which boot state (docs/tpm.md).
struct TPMOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The TPM's TCTI (default: $KEYCHAINFS_TPM_TCTI, else device:/dev/tpmrm0), e.g. swtpm:host=127.0.0.1,port=2321.",
            valueName: "tcti"))
    var tpmTcti: String?

    @Option(
        help: ArgumentHelp(
            "Bind the device key to these SHA-256 PCRs' current values too (e.g. 7 or 0,7): a changed boot state then refuses it.",
            valueName: "pcrs"))
    var tpmPcrs: PCRSelection?

    @Option(
        help: ArgumentHelp(
            "Write a recovery key to this new file (0600; keep it off this machine): it seals the device key anew after a changed boot state or on another TPM (move-device-key --recover). Needed with --tpm-pcrs.",
            valueName: "file"))
    var recoveryKey: String?

    /// The binding these options ask for; the TCTI is kept in the vault's config only when named.
    var binding: TPMBinding { TPMBinding(tcti: tpmTcti, pcrs: tpmPcrs ?? []) }

    var isEmpty: Bool { tpmTcti == nil && tpmPcrs == nil && recoveryKey == nil }

    /// A device key bound to PCRs without a recovery key is lost with the next firmware or boot change.
    func validateForSealing() throws {
        if !(tpmPcrs ?? []).isEmpty && recoveryKey == nil {
            throw ValidationError(
                "--tpm-pcrs needs --recovery-key FILE: without one, a firmware or bootloader update loses the vault")
        }
        var st = stat()
        if let recoveryKey, lstat(recoveryKey, &st) == 0 {
            throw ValidationError("\(recoveryKey) already exists: name a new file for the recovery key")
        }
    }

    /// Writes the recovery key if one was asked for, and says where.
    func writeRecoveryKey(for vault: Vault) throws {
        guard let recoveryKey else { return }
        try vault.writeRecoveryKey(to: recoveryKey)
        print("recovery key written to \(recoveryKey): keep it away from this machine, then remove it here")
    }
}

extension PCRSelection: ExpressibleByArgument {
    package init?(argument: String) { self.init(parsing: argument) }
}
