import Foundation
import KeychainFSCTPM
import KeychainFSModel
import KeychainFSSodium

/// A connection to a TPM 2.0 through tpm2-tss (docs/tpm.md): the storage primary key every connection to
/// one TPM makes alike, and sealing a 32-byte key under it. One connection per use; closed on release.
package final class TPMConnection {
    /// Where a TPM is looked for unless told: the kernel's resource manager.
    package static let defaultTCTI = "device:/dev/tpmrm0"
    /// Names the TCTI for every keychainfs process that has it (the kit, tests, machines with swtpm);
    /// it overrides what a vault's config says.
    package static let environmentVariable = "KEYCHAINFS_TPM_TCTI"

    /// The largest blob a sealed key makes (TPM2B_PUBLIC and TPM2B_PRIVATE of a keyed-hash object).
    static let blobCapacity = 1024

    /// The TCTI this connection uses.
    package let tcti: String
    private let handle: TPMHandle
    /// A call past its deadline still holds the connection: it is never closed then.
    private var abandoned = false

    /// Connects to the TPM at `tcti`: an error names what was looked for, never a fallback.
    package init(tcti: String) throws(KeychainError) {
        let opened = TPMDeadline.run { () -> (UInt32, TPMHandle?) in
            var made: OpaquePointer?
            let rc = keychainfs_tpm_open(tcti, &made)
            return (rc, made.map(TPMHandle.init))
        }
        guard let (rc, made) = opened else {
            throw KeychainError(SecStatus.notAvailable, "the TPM at '\(tcti)' \(TPMDeadline.message)")
        }
        guard rc == 0, let made else {
            throw KeychainError(
                SecStatus.notAvailable,
                "no TPM 2.0 answers at '\(tcti)' (\(Self.describe(rc))): on a machine without one, run swtpm and "
                    + "name it with --tpm-tcti swtpm:host=127.0.0.1,port=PORT or \(Self.environmentVariable) "
                    + "(docs/tpm.md)")
        }
        self.tcti = tcti
        handle = made
    }

    deinit { if !abandoned { keychainfs_tpm_close(handle.pointer) } }

    /// Runs `body` with the connection within the deadline (``TPMDeadline``); nil past it.
    func call<T: Sendable>(_ body: @escaping @Sendable (OpaquePointer) -> T) -> T? {
        let handle = handle
        guard let result = TPMDeadline.run({ body(handle.pointer) }) else {
            abandoned = true
            return nil
        }
        return result
    }

    /// Seals `key` under this TPM's primary key, with `authorization` (empty: none, and then exempt from
    /// dictionary-attack counting) and, when `pcrs` is not empty, a policy of those PCRs' values now.
    package func seal(_ key: GuardedKey, authorization: Data = Data(), pcrs: PCRSelection = []) throws(KeychainError)
        -> [UInt8]
    {
        // The call's own copy, in guarded memory: the caller may wipe `key` while a call past its deadline runs.
        let secret = GuardedKey.filled { copy in key.withBytes { copy.copyMemory(from: $0) } }
        let mask = pcrs.mask
        let sealed = call { handle -> (UInt32, [UInt8]) in
            var blob = [UInt8](repeating: 0, count: Self.blobCapacity)
            var size = 0
            let rc = secret.withBytes { bytes in
                authorization.withUnsafeBytes { auth in
                    keychainfs_tpm_seal(
                        handle, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count,
                        auth.baseAddress?.assumingMemoryBound(to: UInt8.self), auth.count, mask, &blob, blob.count,
                        &size)
                }
            }
            return (rc, Array(blob.prefix(size)))
        }
        guard let (rc, blob) = sealed else {
            throw KeychainError(SecStatus.notAvailable, "the TPM at '\(tcti)' \(TPMDeadline.message)")
        }
        guard rc == 0 else {
            throw KeychainError(SecStatus.internalComponent, "the TPM cannot seal: \(Self.describe(rc))")
        }
        return blob
    }

    /// Unseals a key sealed by ``seal(_:authorization:pcrs:)`` with the same authorization and PCRs.
    package func unseal(_ blob: [UInt8], authorization: Data = Data(), pcrs: PCRSelection = []) throws(TPMFailure)
        -> GuardedKey
    {
        let mask = pcrs.mask
        // Into guarded memory in the call itself: a key is never copied through ordinary memory.
        let unsealed = call { handle -> (UInt32, GuardedKey?) in
            var size = 0
            var rc: UInt32 = 0
            let key = GuardedKey.filled { buffer in
                rc = authorization.withUnsafeBytes { auth in
                    keychainfs_tpm_unseal(
                        handle, blob, blob.count, auth.baseAddress?.assumingMemoryBound(to: UInt8.self), auth.count,
                        mask, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.count, &size)
                }
            }
            guard rc == 0, size == GuardedKey.byteCount else {
                key.wipe()
                return (rc == 0 ? TPMFailure.wrongSize : rc, nil)
            }
            return (0, key)
        }
        guard let (rc, key) = unsealed else { throw TPMFailure(TPMFailure.timedOut) }
        guard let key else { throw TPMFailure(rc) }
        return key
    }

    /// The seconds after which the TPM forgives one failed authorization (its lockout's pace); nil if unknown.
    package var lockoutInterval: Int? {
        let seconds = call { keychainfs_tpm_lockout_interval($0) } ?? 0
        return seconds > 0 ? Int(seconds) : nil
    }

    static func describe(_ rc: UInt32) -> String {
        String(cString: Tss2_RC_Decode(rc)) + String(format: ", 0x%x", rc)
    }
}
