import ArgumentParser
import KeychainFSControlChannel
import KeychainFSFuse
import Foundation
import KeychainFSEngine
import KeychainFSModel

/// Which running daemon a command talks to: `--mount`, `--vault`, or $KEYCHAIN_MOUNT / $KEYCHAIN_VAULT.
struct DaemonAddress: ParsableArguments {
    @Option(help: "Mount point of the daemon to talk to.")
    var mount: String?

    @Option(help: "Vault directory of the daemon to talk to.")
    var vault: String?

    func resolveVault() throws -> Vault {
        let environment = ProcessInfo.processInfo.environment
        if let vault { return Vault(directory: vault) }
        if let mountpoint = mount ?? (environment["KEYCHAIN_VAULT"] == nil ? environment["KEYCHAIN_MOUNT"] : nil) {
            guard let entry = MountTable.entry(mountpoint: mountpoint) else {
                throw CLIError("\(mountpoint) is not a keychainfs mount")
            }
            return Vault(directory: entry.vault)
        }
        if let vault = environment["KEYCHAIN_VAULT"] { return Vault(directory: vault) }
        throw CLIError("say which daemon: --mount MOUNTPOINT or --vault VAULT (or set KEYCHAIN_MOUNT / KEYCHAIN_VAULT)")
    }

    /// Sends a typed call and returns its reply, throwing the daemon's error.
    func call<Call: ControlCall>(_ call: Call) throws -> Call.Reply {
        try ControlClient(vault: try resolveVault()).call(call)
    }
}
