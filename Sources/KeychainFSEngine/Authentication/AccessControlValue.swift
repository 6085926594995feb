import KeychainFSModel

/// kSecAttrAccessControl as the engine stores it: the protection class in kSecAttrAccessible and the flags
/// (SecAccessControlCreateFlags bits) in their own attribute. The `Security` module only unwraps the
/// SecAccessControl object; the rule that the two attributes must agree is the engine's.
public enum AccessControlValue {
    /// Puts an access control of `protection` and `flags` into `dictionary`; a kSecAttrAccessible already
    /// there that names another class is errSecParam (as Apple's SecItemAdd refuses it).
    public static func apply(protection: String, flags: UInt64, to dictionary: inout KeychainDictionary)
        throws(KeychainError)
    {
        if let given = dictionary[Attributes.accessible.code], given != .string(protection) {
            throw KeychainError(SecStatus.param, "conflicting kSecAttrAccessible and kSecAttrAccessControl")
        }
        dictionary[Attributes.accessible.code] = .string(protection)
        dictionary[Attributes.accessControl.code] = .number(Int64(bitPattern: flags))
    }
}
