import Foundation
import KeychainFSModel
import KeychainFSSodium
import KeychainFSTPM

/// The PCRs a sealed key is bound to (the engine's face names it from here).
package typealias PCRSelection = KeychainFSTPM.PCRSelection

/// How a vault's device key is sealed by a TPM 2.0 (docs/tpm.md): the key exists on disk only as the TPM
/// object in `device-key.tpm` inside the vault, which nothing but the TPM that made it can unseal.
package struct TPMBinding: Codable, Sendable, Equatable {
    /// The TCTI named at `init` (nil: ``TPMConnection/defaultTCTI``). `KEYCHAINFS_TPM_TCTI` overrides it.
    package var tcti: String?
    /// The PCRs whose values at sealing the unsealing needs (empty: none).
    package var pcrs: PCRSelection
    /// The config's TCTI wins over the environment's: a test kit device's own swtpm.
    package var pinned: Bool?

    package init(tcti: String?, pcrs: PCRSelection, pinned: Bool? = nil) {
        self.tcti = tcti
        self.pcrs = pcrs
        self.pinned = pinned
    }

    /// The TCTI in force: the environment's (unless pinned), else the config's, else the kernel's resource manager.
    package var tctiInForce: String {
        let named = pinned == true ? "" : ProcessInfo.processInfo.environment[TPMConnection.environmentVariable] ?? ""
        return named.isEmpty ? tcti ?? TPMConnection.defaultTCTI : named
    }

    /// "the TPM at device:/dev/tpmrm0, PCRs 7" for messages and `status`.
    package var summary: String {
        "the TPM at \(tctiInForce)" + (pcrs.isEmpty ? "" : ", bound to PCRs \(pcrs)")
    }
}

/// The device key as a TPM-sealed object.
package enum SealedDeviceKey {
    /// The sealed object's file size bound (it is about 200 bytes).
    static let sizeLimit = 4096

    /// Seals `key` with the TPM `binding` names and writes it, fsynced, to `path` (which must not exist).
    package static func write(_ key: GuardedKey, binding: TPMBinding, to path: String) throws(KeychainError) {
        let tpm = try TPMConnection(tcti: binding.tctiInForce)
        let blob = try tpm.seal(key, pcrs: binding.pcrs)
        do {
            try FileIO.writeExclusively(Data(blob), to: path, mode: 0o600)
        } catch let error where error.status == SecStatus.param {
            throw .param("a sealed device key (or something else) already exists at \(path)")
        }
    }

    /// Seals `key` anew and puts it in place of the sealed key at `path` (readers see the old or the new).
    package static func replace(_ key: GuardedKey, binding: TPMBinding, at path: String) throws(KeychainError) {
        let tpm = try TPMConnection(tcti: binding.tctiInForce)
        try FileIO.writeAtomically(Data(try tpm.seal(key, pcrs: binding.pcrs)), to: path, mode: 0o600)
    }

    /// Unseals the key at `path` with the TPM `binding` names; each refusal says what it means and what to do.
    package static func load(binding: TPMBinding, from path: String) throws(KeychainError) -> GuardedKey {
        guard let blob = try FileIO.read(path, limit: sizeLimit, what: "a sealed device key") else {
            throw KeychainError(
                SecStatus.notAvailable,
                "the sealed device key \(path) is missing: a vault made with --tpm is unreadable without it")
        }
        let tpm = try TPMConnection(tcti: binding.tctiInForce)
        do { return try tpm.unseal(Array(blob), pcrs: binding.pcrs) } catch {
            throw refusal(error, binding: binding, path: path)
        }
    }

    static func refusal(_ failure: TPMFailure, binding: TPMBinding, path: String) -> KeychainError {
        switch failure.kind {
        case .notThisTPM:
            return KeychainError(
                SecStatus.decode,
                "the device key \(path) was sealed by another TPM than \(binding.tctiInForce) (or this TPM's "
                    + "storage hierarchy was cleared), or it is damaged (\(failure)): a vault made with --tpm opens "
                    + "only on the machine that made it: restore a backup there, or seal it for this TPM with "
                    + "'keychainfs move-device-key VAULT --recover RECOVERY-KEY-FILE' (docs/tpm.md, Recovery)")
        case .bootStateChanged:
            return KeychainError(
                SecStatus.authFailed,
                "the boot state changed: PCRs \(binding.pcrs) differ from when the device key was sealed, so "
                    + "\(binding.tctiInForce) does not release it (\(failure)); boot as before, or seal it anew "
                    + "with 'keychainfs move-device-key VAULT --recover RECOVERY-KEY-FILE' (docs/tpm.md, Recovery)")
        case .wrongAuthorization, .lockout, .other:
            return KeychainError(
                SecStatus.internalComponent, "\(binding.tctiInForce) refused to unseal the device key: \(failure)")
        }
    }
}
