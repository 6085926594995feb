import KeychainFSModel
import KeychainFSStore
import Foundation

/// Builds what a call returns from the `r_…` keys (docs/reference/keychain-semantics.md §4.1 #13, §4.2, §6.1).
public struct ResultBuilder {
    let query: ParsedQuery
    let schema: ItemClassSchema
    /// SecItemAdd's attribute dictionary lacks `tomb` and `musr`.
    let forAdd: Bool

    /// The value for one item, or nil when nothing is asked (or only a ref, which genp and inet lack).
    /// `reference` describes the item's ref object (see ``referenceDescription(_:attributes:persistentRef:secret:)``)
    /// when kSecReturnRef asks for one; nil for classes without one.
    func value(
        attributes: [String: KeychainValue], persistentRef: Data, reference: KeychainValue? = nil,
        secret: () throws(KeychainError) -> Data?
    ) throws(KeychainError) -> KeychainValue? {
        let returns = query.returns
        if returns.isEmpty { return nil }
        if returns.count == 1 {
            switch returns.first! {
            case QueryKey.returnData: return .data(try secret() ?? Data())
            case QueryKey.returnPersistentRef: return .data(persistentRef)
            case QueryKey.returnAttributes: return .dictionary(returned(attributes))
            // kSecReturnRef alone: an object, or nothing for genp/inet (docs/reference/keychain-semantics.md §4.2)
            default: return reference
            }
        }
        var dict = query.returnsAttributes ? returned(attributes) : [:]
        if query.returnsData, let data = try secret() { dict[QueryKey.valueData] = .data(data) }
        if query.returnsPersistentRef { dict[QueryKey.valuePersistentRef] = .data(persistentRef) }
        if query.returnsRef {
            dict[QueryKey.class] = .string(schema.code)
            if let reference { dict[QueryKey.valueRef] = reference }
        }
        return .dictionary(dict)
    }

    /// The keys of an identity's description that hold its two halves' descriptions.
    public enum IdentityHalf {
        public static let certificate = "certificate"
        public static let key = "key"
    }

    /// What a ref object is made of, for the client that builds it (the engine has no objects): the
    /// item's attributes with its class, persistent reference and data (a key's bytes, a certificate's
    /// DER). An identity's is its two halves' under `certificate` and `key`.
    static func referenceDescription(
        _ classCode: String, attributes: [String: KeychainValue], persistentRef: Data,
        secret: Data?
    ) -> KeychainValue {
        var description = attributes
        description[QueryKey.class] = .string(classCode)
        description[QueryKey.valuePersistentRef] = .data(persistentRef)
        if let secret { description[QueryKey.valueData] = .data(secret) }
        return .dictionary(description)
    }

    private func returned(_ attributes: [String: KeychainValue]) -> [String: KeychainValue] {
        guard forAdd else { return attributes }
        return attributes.filter { schema.attribute($0.key)?.flags.contains(.omittedFromAddResult) != true }
    }
}
