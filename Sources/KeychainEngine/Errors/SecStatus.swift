/// Apple's `OSStatus`.
public typealias OSStatus = Int32

/// The `errSec…` codes the engine returns, with Apple's values and messages (SecBase.h).
/// This is the one table of status codes; the FUSE layer maps them to errnos in its own one table.
public enum SecStatus {
    public static let success: OSStatus = 0
    public static let unimplemented: OSStatus = -4
    public static let param: OSStatus = -50
    public static let allocate: OSStatus = -108
    public static let notAvailable: OSStatus = -25291
    public static let readOnly: OSStatus = -25292
    public static let authFailed: OSStatus = -25293
    public static let duplicateItem: OSStatus = -25299
    public static let itemNotFound: OSStatus = -25300
    public static let noSuchAttr: OSStatus = -25303
    public static let invalidItemRef: OSStatus = -25304
    public static let noSuchClass: OSStatus = -25306
    public static let interactionNotAllowed: OSStatus = -25308
    public static let decode: OSStatus = -26275
    public static let internalError: OSStatus = -26276
    public static let missingEntitlement: OSStatus = -34018

    /// (code, constant name, Apple's message) for every status above.
    public static let table: [(code: OSStatus, name: String, message: String)] = [
        (success, "errSecSuccess", "No error."),
        (unimplemented, "errSecUnimplemented", "Function or operation not implemented."),
        (param, "errSecParam", "One or more parameters passed to a function were not valid."),
        (allocate, "errSecAllocate", "Failed to allocate memory."),
        (notAvailable, "errSecNotAvailable", "No keychain is available. You may need to restart your computer."),
        (readOnly, "errSecReadOnly", "This keychain cannot be modified."),
        (authFailed, "errSecAuthFailed", "The user name or passphrase you entered is not correct."),
        (duplicateItem, "errSecDuplicateItem", "The specified item already exists in the keychain."),
        (itemNotFound, "errSecItemNotFound", "The specified item could not be found in the keychain."),
        (noSuchAttr, "errSecNoSuchAttr", "The specified attribute does not exist."),
        (invalidItemRef, "errSecInvalidItemRef", "The specified item is no longer valid. It may have been deleted from the keychain."),
        (noSuchClass, "errSecNoSuchClass", "The specified item does not appear to be a valid keychain item."),
        (interactionNotAllowed, "errSecInteractionNotAllowed", "User interaction is not allowed."),
        (decode, "errSecDecode", "Unable to decode the provided data."),
        (internalError, "errSecInternal", "An internal error occurred."),
        (missingEntitlement, "errSecMissingEntitlement", "A required entitlement isn't present."),
    ]

    /// The constant name of `status` (`"errSecItemNotFound"`), or its number.
    public static func name(of status: OSStatus) -> String {
        table.first { $0.code == status }?.name ?? "OSStatus \(status)"
    }

    /// Apple's message for `status`.
    public static func message(of status: OSStatus) -> String {
        table.first { $0.code == status }?.message ?? "OSStatus \(status)"
    }
}
