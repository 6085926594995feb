import KeychainFSCTPM

/// Why the TPM refused to unseal: its response code, sorted into what a user can act on.
package struct TPMFailure: Error, CustomStringConvertible {
    /// Not a TSS code: the object unsealed to something that is not a 32-byte key.
    static let wrongSize: UInt32 = 0xFFFF_FFFF
    /// Not a TSS code: the TPM did not answer within ``TPMDeadline``.
    static let timedOut: UInt32 = 0xFFFF_FFFE

    package enum Kind: Sendable {
        /// The blob is not this TPM's (made by another, or its storage hierarchy was cleared), or damaged.
        case notThisTPM
        /// The PCRs the object is bound to hold other values than when it was sealed.
        case bootStateChanged
        /// The authorization (derived from the passcode) is wrong; the TPM counted the failure.
        case wrongAuthorization
        /// The TPM's dictionary-attack protection refuses every authorization for now.
        case lockout
        case other
    }

    package let rc: UInt32

    init(_ rc: UInt32) { self.rc = rc }

    package var kind: Kind {
        if rc == Self.wrongSize { return .notThisTPM }
        if rc == Self.timedOut { return .other }
        switch keychainfs_tpm_classify(rc) {
        case KEYCHAINFS_TPM_NOT_THIS_TPM: return .notThisTPM
        case KEYCHAINFS_TPM_BOOT_STATE_CHANGED: return .bootStateChanged
        case KEYCHAINFS_TPM_WRONG_AUTHORIZATION: return .wrongAuthorization
        case KEYCHAINFS_TPM_LOCKOUT: return .lockout
        default: return .other
        }
    }

    package var description: String {
        switch rc {
        case Self.wrongSize: "the sealed object holds no 32-byte key"
        case Self.timedOut: "the TPM \(TPMDeadline.message)"
        default: TPMConnection.describe(rc)
        }
    }
}
