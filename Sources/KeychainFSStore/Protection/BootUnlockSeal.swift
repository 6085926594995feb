import Foundation
import KeychainFSModel
import KeychainFSSodium
import KeychainFSTPM

/// Boot unlock for servers (docs/tpm.md): the passcode's KEK sealed by the TPM under a policy of boot-state
/// PCRs only, so that `mount --tpm-unlock` makes the first unlock with nobody at a keyboard while the machine
/// boots as it did, and a disk taken elsewhere (or booted otherwise) reads nothing. The keybag keeps it.
package struct BootUnlockSeal: Codable, Sendable, Equatable {
    /// The KEK as a TPM object (TPM2B_PUBLIC then TPM2B_PRIVATE).
    package var sealed: Data
    /// The PCRs whose values at sealing the TPM needs again to release it.
    package var pcrs: PCRSelection

    /// systemd-cryptenroll's default: PCR 7, the Secure Boot state.
    package static let defaultPCRs: PCRSelection = [7]

    /// Seals `kek` with the TPM `binding` names, to `pcrs`' values now (none: any boot releases it, which
    /// only the engine's test switch asks for).
    package static func seal(_ kek: GuardedKey, binding: TPMBinding, pcrs: PCRSelection) throws(KeychainError)
        -> BootUnlockSeal
    {
        let tpm = try TPMConnection(tcti: binding.tctiInForce)
        return BootUnlockSeal(sealed: Data(try tpm.seal(kek, pcrs: pcrs)), pcrs: pcrs)
    }

    /// The KEK, when the TPM releases it: refused with a message saying why (another boot state, another TPM).
    package func open(binding: TPMBinding) throws(KeychainError) -> GuardedKey {
        let tpm = try TPMConnection(tcti: binding.tctiInForce)
        do { return try tpm.unseal(Array(sealed), pcrs: pcrs) } catch {
            switch error.kind {
            case .bootStateChanged:
                throw KeychainError(
                    SecStatus.interactionNotAllowed,
                    "the boot state changed: PCRs \(pcrs) differ from when boot unlock was enabled, so "
                        + "\(binding.tctiInForce) does not release the unlock (\(error)); the device stays locked: "
                        + "unlock it with the passcode, then 'keychainfs device boot-unlock enable' seals it to this boot"
                )
            case .notThisTPM:
                throw KeychainError(
                    SecStatus.interactionNotAllowed,
                    "the boot unlock was sealed by another TPM than \(binding.tctiInForce) (\(error)); the device "
                        + "stays locked: unlock it with the passcode")
            case .wrongAuthorization, .lockout, .other:
                throw KeychainError(
                    SecStatus.interactionNotAllowed,
                    "\(binding.tctiInForce) did not release the boot unlock (\(error)); the device stays locked")
            }
        }
    }
}
