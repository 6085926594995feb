import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel

/// A vault's control socket served by a process that already holds its engine (the test kit's mounted
/// simulated device), with the daemon's own handler: `keychainfs device …`, `keychainfs status` and
/// clients in other processes reach that engine exactly as they reach a daemon's.
package final class EmbeddedControlServer: Sendable {
    private let server: ControlServer

    /// Listens on `vault`'s control socket path. `requestUnmount` is what `keychainfs unmount` asks for.
    package init(
        keychain: Keychain, vault: Vault, mountpoint: String, requestUnmount: @escaping @Sendable () -> Void
    ) throws(KeychainError) {
        let handler = ControlHandler(keychain: keychain, mountpoint: mountpoint, requestUnmount: requestUnmount)
        server = try ControlServer(
            socketPath: ControlSocket.path(for: vault), peerHandler: handler.handle,
            requesterGone: { keychain.prompts.cancel(requester: $0) })
    }

    /// Stops accepting and removes the socket file.
    package func close() { server.close() }
}
