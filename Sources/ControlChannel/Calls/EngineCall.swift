import Foundation
import KeychainEngine
import KeychainModel

/// A call that any engine answers the same way, wherever it runs: the daemon for a client on its socket, or
/// a client's own engine when no daemon serves the vault (``KeychainClient``'s route). What the call does
/// is written here once, beside its codec, not at each end.
public protocol EngineCall: ControlCall {
    /// Runs the call on `keychain` for `caller`.
    func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) -> Reply
}

extension ItemAdd: EngineCall {
    public func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) -> KeychainValue? {
        try keychain.add(query, caller: caller)
    }
}

extension ItemCopyMatching: EngineCall {
    public func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) -> KeychainValue? {
        try keychain.copyMatching(query, caller: caller)
    }
}

extension ItemUpdate: EngineCall {
    public func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) {
        try keychain.update(query, attributes, caller: caller)
    }
}

extension ItemDelete: EngineCall {
    public func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) {
        try keychain.delete(query, caller: caller)
    }
}

extension ItemAddIdentity: EngineCall {
    public func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) {
        try keychain.addIdentity(certificate: certificate, key: key, caller: caller)
    }
}

extension SecureEnclaveCall: EngineCall {
    public func perform(on keychain: Keychain, caller: Caller) throws(KeychainError) -> KeychainValue? {
        try keychain.secureEnclave(operation, caller: caller)
    }
}
