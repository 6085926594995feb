import Foundation
import KeychainFSEngine
import KeychainFSModel

/// A call that any engine answers the same way, wherever it runs: the daemon for a client on its socket, or
/// a client's own engine when no daemon serves the vault (``KeychainClient``'s route). What the call does
/// is written here once, beside its codec, not at each end.
package protocol EngineCall: ControlCall {
    /// Runs the call on `keychain` for `caller`.
    func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) -> Reply
}

extension ItemAdd: EngineCall {
    package func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) -> KeychainValue? {
        try keychain.add(query, caller: caller)
    }
}

extension ItemCopyMatching: EngineCall {
    package func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) -> KeychainValue? {
        try keychain.copyMatching(query, caller: caller)
    }
}

extension ItemUpdate: EngineCall {
    package func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) {
        try keychain.update(query, attributes, caller: caller)
    }
}

extension ItemDelete: EngineCall {
    package func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) {
        try keychain.delete(query, caller: caller)
    }
}

extension ItemAddIdentity: EngineCall {
    package func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) {
        try keychain.addIdentity(certificate: certificate, key: key, caller: caller)
    }
}

extension SecureEnclaveCall: EngineCall {
    package func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) -> KeychainValue? {
        try keychain.secureEnclave(operation, caller: caller)
    }
}
