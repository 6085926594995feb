import ArgumentParser
import KeychainFSEngine
import KeychainFSModel

struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Create a vault: item database, keybag and device key.")

    @Argument(help: "The vault directory to create.")
    var vault: String

    @Option(
        help:
            "Keep the device key in this file (default: a new file in $XDG_STATE_HOME/keychainfs or ~/.local/state/keychainfs); the vault directory alone is unreadable without it."
    )
    var deviceKey: String?

    @Flag(help: "A test device: wrong passcodes never lock unlocking out, and Argon2id uses its interactive limits.")
    var testDevice = false

    func run() throws {
        let created = try Vault.create(at: vault, deviceKeyPath: deviceKey, testDevice: testDevice)
        print("created vault \(created.directory) (device key: \(try created.deviceKeyPath()); no passcode set)")
    }
}
