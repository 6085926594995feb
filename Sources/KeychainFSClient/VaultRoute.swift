import KeychainFSControlChannel
import Foundation
import KeychainFSEngine
import KeychainFSModel
import KeychainFSSync
import Synchronization

/// Where a call on a vault runs, written once (docs/architecture.md): through the daemon that serves the
/// vault, so its device lock, access rules and audit log apply; else in this process, on an engine opened
/// for that call. Items and LAContext (``KeychainConnection``), sync and git's merge driver all go this way.
///
/// A route that has once reached a daemon never falls back to an in-process engine: the daemon's lock state
/// is the one in force. While its daemon is away it waits up to ``daemonGraceSeconds`` for one, then
/// answers errSecNotAvailable; so does a call that finds the vault held by a daemon that is starting.
package final class VaultRoute: Sendable {
    /// How long a call waits for a daemon that is away (restarting) before errSecNotAvailable.
    package static let daemonGraceSeconds: TimeInterval = 3
    /// How long a call of a client that has not used a daemon waits while another process holds the vault
    /// (another client's call: an unlock's Argon2id takes ~0.6 s; or a daemon starting, whose socket
    /// follows), and the slices it waits in, asking the socket between them. (Waiting for the lock in one
    /// piece, a call that came while a daemon started waited 10 s and failed though the daemon was up.)
    package static let holderPatienceSeconds: TimeInterval = 10
    package static let holderSliceSeconds: TimeInterval = 0.05

    package let vault: Vault
    private let client: ControlClient
    private let usedDaemon = Mutex(false)

    package init(vault: Vault) {
        self.vault = vault
        client = ControlClient(vault: vault)
    }

    /// Whether a daemon serves the vault now; once one has, every later call goes to a daemon.
    package func probe() -> Bool {
        let served = client.isDaemonRunning
        if served { usedDaemon.withLock { $0 = true } }
        return served
    }

    /// Whether calls go to a daemon (the last call did, or ``probe()`` found one).
    package var viaDaemon: Bool { usedDaemon.withLock { $0 } }

    /// Sends `call` (with `claims`, what the client says about itself) to the vault's daemon, or runs
    /// `inProcess` when none serves it.
    package func perform<Call: ControlCall>(
        _ call: Call, claims: KeychainDictionary = [:], inProcess: () throws(KeychainError) -> Call.Reply
    ) throws(KeychainError) -> Call.Reply {
        var request = call.request
        request.arguments.merge(claims) { $1 }
        let deadline = Date().addingTimeInterval(viaDaemon ? Self.daemonGraceSeconds : Self.holderPatienceSeconds)
        while true {
            if let response = try client.sendIfServed(request) {
                usedDaemon.withLock { $0 = true }
                return try Call.decode(try response.check())
            }
            if !viaDaemon {
                do { return try inProcess() } catch let error {
                    // Another process holds the vault (another client's call, or a daemon starting up, whose
                    // socket follows): ask again until the deadline, then say so. Only a call that could not
                    // take the vault is asked again: one that ran and failed (a wrong passcode, which is
                    // counted) is never run twice because another process took the vault after it.
                    guard error.status == SecStatus.notAvailable, VaultLock.isHeld(vault) else { throw error }
                    guard Date() < deadline else { throw error }
                }
            }
            guard Date() < deadline else {
                throw KeychainError(
                    SecStatus.notAvailable,
                    "the keychainfs daemon serving \(vault.directory) has gone away and none came back within \(Int(Self.daemonGraceSeconds)) s"
                )
            }
            usleep(50_000)
        }
    }

    /// A sync call: the daemon's session, or one of this process (`executable` is the program git runs as
    /// the merge driver).
    package func perform<Call: SyncCall>(_ call: Call, executable: String) throws(KeychainError) -> Call.Reply {
        try perform(call) { () throws(KeychainError) -> Call.Reply in
            _ = try vault.config()
            let access = InProcessSyncAccess(vault: vault)
            return try call.perform(in: SyncSession(vault: vault, access: access, executable: executable))
        }
    }
}
