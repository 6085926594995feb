import Foundation

/// Derives attributes from an item's value, for the classes whose value describes the item
/// (a certificate's DER, a key's bytes). The schema table names each class's interpreter.
package struct ValueInterpreter: Sendable {
    package struct Derived {
        /// Attributes the value determines: they replace what the caller gave.
        package var determined: [String: KeychainValue] = [:]
        /// Defaults: used only where the caller gave nothing (or the attribute's default).
        package var defaults: [String: KeychainValue] = [:]
    }

    package let derive:
        @Sendable (_ value: Data, _ attributes: [String: KeychainValue]) throws(KeychainError) -> Derived

    /// Applies what `value` says to `attributes`.
    package func apply(_ value: Data, to attributes: inout [String: KeychainValue], schema: ItemClassSchema)
        throws(KeychainError)
    {
        let derived = try derive(value, attributes)
        attributes.merge(derived.determined) { $1 }
        for (code, value) in derived.defaults {
            let current = attributes[code]
            if current == nil || current == schema.attribute(code)?.defaultValue { attributes[code] = value }
        }
    }
}
