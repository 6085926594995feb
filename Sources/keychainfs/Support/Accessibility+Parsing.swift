import KeychainFSEngine
import KeychainFSModel

extension Accessibility {
    /// Accepts the raw value (`ck`) or the constant name (`kSecAttrAccessibleAfterFirstUnlock`).
    init?(argument: String) {
        if let raw = Accessibility(rawValue: argument) { self = raw; return }
        guard let raw = Attributes.accessible.enumeration?.raw(named: argument)?.stringValue,
            let value = Accessibility(rawValue: raw)
        else {
            return nil
        }
        self = value
    }
}
