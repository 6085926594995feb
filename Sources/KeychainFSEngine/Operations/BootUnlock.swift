import Foundation
import KeychainFSModel
import KeychainFSSodium
import KeychainFSStore

/// Boot unlock for servers (docs/tpm.md, "Boot unlock"): the first unlock after a boot without a passcode
/// typed, when the TPM releases the passcode's KEK sealed to boot-state PCRs.
extension Keychain {
    /// Switched off (a test device only), boot unlock is sealed to no PCR: any boot unlocks, and the test
    /// that a changed boot state stays locked fails.
    package static let bootStatePolicySwitch = "boot-unlock-pcrs"

    /// `device boot-unlock enable`: checks `passcode` (an attempt like any other) and seals its KEK to
    /// `pcrs`' values now. Needs a vault whose device key the TPM seals.
    package func enableBootUnlock(passcode: Data, pcrs: PCRSelection) throws(KeychainError) {
        guard !pcrs.isEmpty else {
            throw .param("boot unlock needs PCRs to bind to (default 7): without them any boot would unlock")
        }
        guard let deviceKeyTPM else {
            throw .param(
                "boot unlock needs a vault whose device key the TPM seals ('keychainfs init --tpm' or 'move-device-key --to-tpm')"
            )
        }
        try oneAttemptAtATime { () throws(KeychainError) in
            defer { noteChange(.device) }
            let kek = try verifyingPasscode(passcode) { _, kek throws(KeychainError) in
                GuardedKey.filled { copy in kek.withBytes { copy.copyMemory(from: $0) } }
            }
            defer { kek.wipe() }
            let testDevice = protection.withLock { $0.record.testDevice }
            let policyOff = TestSwitches.isOff(Self.bootStatePolicySwitch, testDevice: testDevice)
            let seal = try BootUnlockSeal.seal(kek, binding: deviceKeyTPM, pcrs: policyOff ? [] : pcrs)
            try protection.withLock { keybag throws(KeychainError) in
                try keybag.updateSettings { $0.bootUnlock = seal }
            }
        }
    }

    /// `device boot-unlock disable`: forgets the sealed KEK.
    package func disableBootUnlock() throws(KeychainError) {
        try oneAttemptAtATime { () throws(KeychainError) in
            try protection.withLock { keybag throws(KeychainError) in
                guard keybag.record.bootUnlock != nil else { throw .param("boot unlock is not enabled") }
                try keybag.updateSettings { $0.bootUnlock = nil }
            }
        }
        noteChange(.device)
    }

    /// Whether boot unlock is enabled, and to which PCRs.
    package var bootUnlockPCRs: PCRSelection? { protection.withLock { $0.record.bootUnlock?.pcrs } }

    /// `mount --tpm-unlock`, `device unlock --tpm`: the first unlock after a boot (a daemon start or `device
    /// reboot`), as the passcode would make it, when the TPM releases the sealed KEK; otherwise the device
    /// stays as it was and the error says why (errSecInteractionNotAllowed: a changed boot state, another TPM).
    /// After `device lock` only the passcode unlocks: the lock keeps its meaning.
    package func unlockWithBootSeal() throws(KeychainError) {
        try oneAttemptAtATime { () throws(KeychainError) in
            let state = protection.withLock { $0.state }
            if state == .unlocked || state == .noPasscode { return }
            guard state == .beforeFirstUnlock else {
                throw KeychainError(
                    SecStatus.interactionNotAllowed,
                    "boot unlock makes only the first unlock after a boot: after 'device lock' the passcode unlocks")
            }
            guard let seal = protection.withLock({ $0.record.bootUnlock }) else {
                throw KeychainError(
                    SecStatus.interactionNotAllowed,
                    "boot unlock is not enabled: 'keychainfs device boot-unlock enable' seals the unlock to this boot")
            }
            guard let deviceKeyTPM else {
                throw KeychainError(
                    SecStatus.decode, "the keybag's boot unlock needs the TPM this vault's config names")
            }
            let kek = try seal.open(binding: deviceKeyTPM)
            defer { kek.wipe() }
            defer { noteChange(.device) }
            try protection.withLock { keybag throws(KeychainError) in
                guard keybag.record.bootUnlock == seal, keybag.state == .beforeFirstUnlock else {
                    throw KeychainError(SecStatus.interactionNotAllowed, "the device changed during this unlock")
                }
                try keybag.unlock(with: kek, at: now())
            }
            sealRowShapes()
            scheduleAutoLock()
        }
    }

    /// The boot unlock sealed anew for a new passcode's KEK (to the same PCRs' values now); nil when off.
    func resealedBootUnlock(_ newKEK: GuardedKey) throws(KeychainError) -> BootUnlockSeal? {
        guard let seal = protection.withLock({ $0.record.bootUnlock }), let deviceKeyTPM else { return nil }
        return try BootUnlockSeal.seal(newKEK, binding: deviceKeyTPM, pcrs: seal.pcrs)
    }
}
