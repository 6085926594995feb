import Foundation

/// Builds what a call returns from the `r_…` keys (reference §4.1 #13, §4.2, §6.1).
struct ResultBuilder {
    let query: ParsedQuery
    let schema: ItemClassSchema
    /// SecItemAdd's attribute dictionary lacks `tomb` and `musr`.
    let forAdd: Bool

    /// The value for one item, or nil when nothing is asked (or only a ref, which genp does not have).
    func value(attributes: [String: KeychainValue], persistentRef: Data, secret: () throws(KeychainError) -> Data?) throws(KeychainError) -> KeychainValue? {
        let returns = query.returns
        if returns.isEmpty { return nil }
        if returns.count == 1 {
            switch returns.first! {
            case SecKey.returnData: return .data(try secret() ?? Data())
            case SecKey.returnPersistentRef: return .data(persistentRef)
            case SecKey.returnAttributes: return .dictionary(returned(attributes))
            default: return nil  // kSecReturnRef alone: genp/inet items have no ref object (reference §4.2)
            }
        }
        var dict = query.returnsAttributes ? returned(attributes) : [:]
        if query.returnsData, let data = try secret() { dict[SecKey.valueData] = .data(data) }
        if query.returnsPersistentRef { dict[SecKey.valuePersistentRef] = .data(persistentRef) }
        if query.returnsRef { dict[SecKey.class] = .string(schema.code) }
        return .dictionary(dict)
    }

    private func returned(_ attributes: [String: KeychainValue]) -> [String: KeychainValue] {
        guard forAdd else { return attributes }
        return attributes.filter { schema.attribute($0.key)?.flags.contains(.omittedFromAddResult) != true }
    }
}
