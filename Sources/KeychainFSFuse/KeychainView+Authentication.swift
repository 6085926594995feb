import Foundation
import KeychainFSEngine
import KeychainFSModel

/// Opening the value of an item with access control (docs/spec.md §4 gatekeeper path, §11): the engine's read
/// policy decides at OPEN, for the opening process; its answer (a token) covers that open file's reads
/// until close or lock, and a read never prompts.
extension KeychainView {
    /// The item behind `path` when opening it needs user authentication; nil when it does not.
    /// `.applicationPassword` items are EACCES: a filesystem read cannot carry a password.
    func protectedValue(_ node: FSNode) throws(FSError) -> FSItem? {
        guard case .file(let item, .value) = node, !item.isSealed,
            let constraint = AccessConstraint(attributes: item.attributes)
        else { return nil }
        if constraint.passwordRequired {
            throw FSError(EACCES, "items with an application password cannot be read through the filesystem")
        }
        return item
    }

    /// Asks the engine's read policy for `item`, on behalf of process `pid`; `completion` runs once
    /// with the open file's token or the errno of the refusal (through the one table).
    func authorizeOpen(_ item: FSItem, pid: Int32, completion: @escaping @Sendable (Result<Data, FSError>) -> Void)
        -> AuthorizationHandle
    {
        let caller = self.caller.acting(asProcess: pid)
        let request = AuthorizationRequest(
            item: item.attributes, itemClass: item.schema.code, use: .readSecret, caller: caller,
            options: AuthenticationOptions(reason: "read \(item.schema.code) value through the filesystem"))
        return keychain.authorizeOpenFile(request) { result in
            completion(result.mapError { FSError($0.keychainError) })
        }
    }

    /// Ends an open file's answer (at release).
    func endAuthorization(_ token: Data) { keychain.invalidateEvaluation(token) }
}
