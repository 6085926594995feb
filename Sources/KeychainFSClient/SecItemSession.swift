import KeychainFSModel

/// Where SecItem calls go: the engine a test bound to this task or process (``KeychainBinding``), else
/// ``UnboundCalls``: the vault named by `KEYCHAIN_VAULT` (default `$XDG_DATA_HOME/keychainfs/default`, made on
/// first use without a passcode; never while a test kit device lives in the process, unless made for tests),
/// through its daemon if one serves it, else in this process; access groups from `KEYCHAIN_ACCESS_GROUPS`.
/// Each call chooses daemon or in-process (``KeychainConnection``), and a process that has used a daemon
/// keeps using one.
package enum SecItemSession {
    package static func call(_ body: (KeychainConnection) throws(KeychainError) -> Void) -> OSStatus {
        if let bound = KeychainBinding.current { return status(of: body, bound.connection) }
        do {
            return status(of: body, try UnboundCalls.connection())
        } catch {
            return error.status
        }
    }

    private static func status(
        of body: (KeychainConnection) throws(KeychainError) -> Void, _ connection: KeychainConnection
    ) -> OSStatus {
        do {
            try body(connection)
            return SecStatus.success
        } catch {
            return error.status
        }
    }
}
