import KeychainFSModel
import KeychainFSStore
import Foundation

extension Keychain {
    /// The last steps of opening a vault: record the format once the database is migrated, and finish a
    /// passcode removal a crash interrupted (its akpu items are deleted now).
    func finishOpening(_ config: Vault.Config) throws(KeychainError) {
        if config.format < VaultFormat.current {
            var migrated = config
            migrated.format = VaultFormat.current
            try vault.save(migrated)
        }
        try protection.withLock { keybag throws(KeychainError) in
            if keybag.record.akpuSweepPending == true, !keybag.record.hasPasscode { _ = try sweepAkpuItems(&keybag) }
        }
        sealRowShapes()
    }
}
