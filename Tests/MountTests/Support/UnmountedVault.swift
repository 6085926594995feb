import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel
import KeychainFSTestSupport

/// A vault with no daemon, used in turn by this process (a connection) and by the `security` verbs of
/// the built CLI: each opens it in-process for one call.
struct UnmountedVault {
    let root: String
    var vault: String { root + "/vault" }

    init(_ name: String) { root = TestDirectory.root + "/kcfs-\(name)-" + UUID().uuidString.prefix(8) }

    /// Runs `keychainfs ARGS` on the vault, with no access group claimed.
    func security(_ arguments: [String]) -> CommandResult {
        Command.run(
            MountedVault.binary, arguments, environment: ["KEYCHAIN_VAULT": vault, "KEYCHAIN_ACCESS_GROUPS": ""])
    }

    /// A connection in this process, closed when `body` returns (the CLI opens the vault next).
    func withConnection(_ body: (KeychainConnection) throws -> Void) throws {
        try body(try KeychainConnection(vault: Vault(directory: vault), caller: Caller(), createIfMissing: true))
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}
