import Foundation
import KeychainFSEngine
import KeychainFSModel
import Synchronization

/// Where a `Security` or `LocalAuthentication` call goes when no test bound it (``KeychainBinding``): the
/// vault `KEYCHAIN_VAULT` names, else the default vault (made on first use), one connection per vault and
/// access groups.
///
/// While a simulated device of the test kit lives in this process, an unbound call is one that escaped its
/// test's binding (a DispatchQueue or a Thread loses task-locals; a wrapper's `clear()` there would delete
/// the user's items). It then reaches only a vault made for tests (`keychainfs init --test-device`, the
/// kit's own), never one of the user's, and never makes one: errSecNotAvailable, said once on stderr.
package enum UnboundCalls {
    private static let connections = Mutex<[String: (connection: KeychainConnection, madeForTests: Bool)]>([:])
    private static let liveKitDevices = Atomic<Int>(0)
    private static let warned = Atomic<Bool>(false)

    /// A simulated device came to life in this process (KeychainTesting's `SimulatedDevice.init`).
    package static func kitDeviceMade() { liveKitDevices.add(1, ordering: .sequentiallyConsistent) }

    /// A simulated device went away.
    package static func kitDeviceGone() { liveKitDevices.subtract(1, ordering: .sequentiallyConsistent) }

    /// The connection an unbound call uses, or the refusal of a call that escaped a kit device's binding.
    package static func connection() throws(KeychainError) -> KeychainConnection {
        let vault = ClientEnvironment.defaultVault()
        let caller = ClientEnvironment.caller()
        let key = vault.directory + "\u{0}" + caller.accessGroups.joined(separator: ",")
        let kitAlive = liveKitDevices.load(ordering: .sequentiallyConsistent) > 0
        let entry = try connections.withLock {
            table throws(KeychainError) -> (connection: KeychainConnection, madeForTests: Bool) in
            if let existing = table[key] { return existing }
            if kitAlive, !isMadeForTests(vault) { throw refusal(of: vault) }
            let connection = try KeychainConnection(vault: vault, caller: caller, createIfMissing: true)
            let made = (connection: connection, madeForTests: isMadeForTests(vault))
            table[key] = made
            return made
        }
        if kitAlive, !entry.madeForTests { throw refusal(of: vault) }
        return entry.connection
    }

    private static func isMadeForTests(_ vault: Vault) -> Bool {
        vault.exists && (try? vault.config())?.testDevice == true
    }

    private static func refusal(of vault: Vault) -> KeychainError {
        let message =
            "a keychain call outside the simulated device's binding (on a DispatchQueue or a Thread, which lose "
            + "task-locals) was refused rather than sent to \(vault.directory), a vault not made for tests: "
            + "bind the process (device.makeCurrent(), or SimulatedDeviceTestCase) or use device.runInBackground"
        if !warned.exchange(true, ordering: .sequentiallyConsistent) {
            FileHandle.standardError.write(Data(("keychainfs Security: " + message + "\n").utf8))
        }
        return KeychainError(SecStatus.notAvailable, message)
    }
}
