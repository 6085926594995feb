import KeychainModel
import KeychainStore
import Foundation

extension Keychain {
    /// SecItemUpdate of an item with access control (docs/spec.md §11): a new secret, or a change of its access
    /// control or protection class, is authorized through the read policy first, item by item, before
    /// the write (prompts never wait under the keybag's lock). Attribute-only updates never prompt
    /// (docs/authentication-table.md, "Updates").
    func authorizeUpdate(_ query: KeychainDictionary, _ q: ParsedQuery, changesSecretOrProtection: Bool, caller: Caller)
        throws(KeychainError)
    {
        guard changesSecretOrProtection, let schema = q.schema else { return }
        var attributeQuery = query
        attributeQuery[QueryKey.returnAttributes] = true
        attributeQuery[QueryKey.matchLimit] = .string(QueryKey.matchLimitAll)
        let found: [KeychainValue]
        do { found = try copyMatching(attributeQuery, caller: caller)?.arrayValue ?? [] } catch
            where error.status == SecStatus.itemNotFound
        { return }
        let options = AuthenticationOptions(useKeys: q.useKeys, authenticationUI: q.authenticationUI)
        for item in found.compactMap(\.dictionaryValue) where Self.needsAuthorization(item) {
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
