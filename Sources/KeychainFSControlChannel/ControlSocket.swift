import Foundation
import KeychainFSEngine
import KeychainFSModel

/// Where a vault's daemon listens, and how Unix socket addresses are built.
package enum ControlSocket {
    /// `VAULT/control.sock`, or, when that path is too long for a socket address, a name derived from
    /// the vault path in a 0700 per-user directory under /tmp.
    package static func path(for vault: Vault) -> String {
        let inVault = vault.directory + "/control.sock"
        if inVault.utf8.count < maxPathBytes { return inVault }
        return "/tmp/keychainfs-\(getuid())/\(String(StableHash.fnv1a64(vault.directory.utf8), radix: 16)).sock"
    }

    static let maxPathBytes = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    static func address(_ path: String) throws(KeychainError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < maxPathBytes else { throw KeychainError(SecStatus.param, "socket path too long: \(path)") }
        withUnsafeMutableBytes(of: &address.sun_path) { dst in
            dst.copyBytes(from: bytes)
            dst[bytes.count] = 0
        }
        return address
    }
}
