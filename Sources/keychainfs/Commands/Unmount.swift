import ArgumentParser
import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSFuse

struct Unmount: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unmount", abstract: "Unmount a vault and stop its daemon; returns once the mount is gone.")

    @Argument(help: "The mount point.")
    var mountpoint: String

    func run() throws {
        guard let entry = MountTable.entry(mountpoint: mountpoint) else {
            throw CLIError("\(mountpoint) is not a keychainfs mount")
        }
        let client = ControlClient(vault: Vault(directory: entry.vault))
        do {
            try client.call(UnmountCall())
        } catch  where error.status != SecStatus.notAvailable {
            // The daemon answered and refused (--strict without `allow`): a
            // refusal is reported as one, and the mount is left as it is.
            throw CLIError("cannot unmount \(entry.mountpoint): the daemon refused (\(error.status)): \(error.message)")
        } catch {
            // No daemon answers: a dead mount (daemon killed), or one that is not ours to stop.
            FuseMount.detach(entry.mountpoint)
            if MountTable.isMounted(entry.mountpoint) {
                throw CLIError(
                    "cannot unmount \(entry.mountpoint): its daemon cannot be reached (\(error.message)) and the mount could not be detached (is it another user's?)"
                )
            }
            return
        }
        let deadline = Date().addingTimeInterval(10)
        while MountTable.isMounted(entry.mountpoint) {
            guard Date() < deadline else {
                FuseMount.detach(entry.mountpoint)
                if MountTable.isMounted(entry.mountpoint) {
                    throw CLIError(
                        "the daemon did not unmount \(entry.mountpoint) within 10 s, and the mount could not be detached"
                    )
                }
                throw CLIError("the daemon did not unmount \(entry.mountpoint) within 10 s; detached it")
            }
            usleep(10_000)
        }
        // Done once the daemon has let go of the vault, so that a mount right after this one succeeds.
        let vault = Vault(directory: entry.vault)
        while Date() < deadline, (try? VaultLock(vault)) == nil { usleep(5_000) }
    }
}
