import KeychainFSModel
import KeychainFSStore
import Foundation

extension Keychain {
    /// SecItemUpdate of an item with access control (docs/spec.md §11): a new secret, or a change of its access
    /// control or protection class, is authorized through the read policy first, item by item, before
    /// the write (prompts never wait under the keybag's lock). Attribute-only updates never prompt
    /// (docs/authentication-table.md, "Updates").
    func authorizeUpdate(
        of items: [[String: KeychainValue]], schema: ItemClassSchema, caller: Caller, options: AuthenticationOptions
    ) throws(KeychainError) {
        for item in items {
            switch authorize(
                AuthorizationRequest(
                    item: item, itemClass: schema.code, use: .updateSecret, caller: caller, options: options))
            {
            case .granted: continue
            case .skipped: throw KeychainError(SecStatus.interactionNotAllowed, "the item needs user authentication")
            case .denied(let failure): throw failure.keychainError
            }
        }
    }
}
