/// Apple's `OSStatus`.
public typealias OSStatus = Int32

/// The `errSec…` codes of SecBase.h with Apple's values and messages. This is the one table of
/// status codes: the engine returns them, the `Security` module re-exports them, the FUSE layer maps
/// them to errnos in its own one table.
public enum SecStatus {
    public static let success: OSStatus = 0
    public static let unimplemented: OSStatus = -4
    public static let diskFull: OSStatus = -34
    public static let io: OSStatus = -36
    public static let opWr: OSStatus = -49
    public static let param: OSStatus = -50
    public static let wrPerm: OSStatus = -61
    public static let allocate: OSStatus = -108
    public static let userCanceled: OSStatus = -128
    public static let badReq: OSStatus = -909
    public static let internalComponent: OSStatus = -2070
    public static let coreFoundationUnknown: OSStatus = -4960
    public static let missingEntitlement: OSStatus = -34018
    public static let restrictedAPI: OSStatus = -34020
    public static let notAvailable: OSStatus = -25291
    public static let readOnly: OSStatus = -25292
    public static let authFailed: OSStatus = -25293
    public static let noSuchKeychain: OSStatus = -25294
    public static let invalidKeychain: OSStatus = -25295
    public static let duplicateKeychain: OSStatus = -25296
    public static let duplicateCallback: OSStatus = -25297
    public static let invalidCallback: OSStatus = -25298
    public static let duplicateItem: OSStatus = -25299
    public static let itemNotFound: OSStatus = -25300
    public static let bufferTooSmall: OSStatus = -25301
    public static let dataTooLarge: OSStatus = -25302
    public static let noSuchAttr: OSStatus = -25303
    public static let invalidItemRef: OSStatus = -25304
    public static let invalidSearchRef: OSStatus = -25305
    public static let noSuchClass: OSStatus = -25306
    public static let noDefaultKeychain: OSStatus = -25307
    public static let interactionNotAllowed: OSStatus = -25308
    public static let readOnlyAttr: OSStatus = -25309
    public static let wrongSecVersion: OSStatus = -25310
    public static let keySizeNotAllowed: OSStatus = -25311
    public static let noStorageModule: OSStatus = -25312
    public static let noCertificateModule: OSStatus = -25313
    public static let noPolicyModule: OSStatus = -25314
    public static let interactionRequired: OSStatus = -25315
    public static let dataNotAvailable: OSStatus = -25316
    public static let dataNotModifiable: OSStatus = -25317
    public static let createChainFailed: OSStatus = -25318
    public static let invalidPrefsDomain: OSStatus = -25319
    public static let inDarkWake: OSStatus = -25320
    public static let aclNotSimple: OSStatus = -25240
    public static let policyNotFound: OSStatus = -25241
    public static let invalidTrustSetting: OSStatus = -25242
    public static let noAccessForItem: OSStatus = -25243
    public static let invalidOwnerEdit: OSStatus = -25244
    public static let trustNotAvailable: OSStatus = -25245
    public static let unsupportedFormat: OSStatus = -25256
    public static let unknownFormat: OSStatus = -25257
    public static let keyIsSensitive: OSStatus = -25258
    public static let multiplePrivKeys: OSStatus = -25259
    public static let passphraseRequired: OSStatus = -25260
    public static let invalidPasswordRef: OSStatus = -25261
    public static let invalidTrustSettings: OSStatus = -25262
    public static let noTrustSettings: OSStatus = -25263
    public static let pkcs12VerifyFailure: OSStatus = -25264
    public static let notSigner: OSStatus = -26267
    public static let decode: OSStatus = -26275
    public static let internalError: OSStatus = -26276
    public static let serviceNotAvailable: OSStatus = -67585
    public static let verifyFailed: OSStatus = -67808
    public static let hostNameMismatch: OSStatus = -67602
    public static let certificateExpired: OSStatus = -67818
    public static let certificateNotValidYet: OSStatus = -67819
    public static let notTrusted: OSStatus = -67843

    /// (code, constant name, Apple's message) for every status above.
    public static let table: [(code: OSStatus, name: String, message: String)] = [
        (success, "errSecSuccess", "No error."),
        (unimplemented, "errSecUnimplemented", "Function or operation not implemented."),
        (diskFull, "errSecDiskFull", "The disk is full."),
        (io, "errSecIO", "I/O error."),
        (opWr, "errSecOpWr", "File already open with write permission."),
        (param, "errSecParam", "One or more parameters passed to a function were not valid."),
        (wrPerm, "errSecWrPerm", "Write permissions error."),
        (allocate, "errSecAllocate", "Failed to allocate memory."),
        (userCanceled, "errSecUserCanceled", "User canceled the operation."),
        (badReq, "errSecBadReq", "Bad parameter or invalid state for operation."),
        (internalComponent, "errSecInternalComponent", "An internal component failed."),
        (coreFoundationUnknown, "errSecCoreFoundationUnknown", "An unknown Core Foundation error occurred."),
        (missingEntitlement, "errSecMissingEntitlement", "A required entitlement isn't present."),
        (restrictedAPI, "errSecRestrictedAPI", "Client is restricted and is not permitted to perform this operation."),
        (notAvailable, "errSecNotAvailable", "No keychain is available. You may need to restart your computer."),
        (readOnly, "errSecReadOnly", "This keychain cannot be modified."),
        (authFailed, "errSecAuthFailed", "The user name or passphrase you entered is not correct."),
        (noSuchKeychain, "errSecNoSuchKeychain", "The specified keychain could not be found."),
        (invalidKeychain, "errSecInvalidKeychain", "The specified keychain is not a valid keychain file."),
        (duplicateKeychain, "errSecDuplicateKeychain", "A keychain with the same name already exists."),
        (duplicateCallback, "errSecDuplicateCallback", "The specified callback function is already installed."),
        (invalidCallback, "errSecInvalidCallback", "The specified callback function is not valid."),
        (duplicateItem, "errSecDuplicateItem", "The specified item already exists in the keychain."),
        (itemNotFound, "errSecItemNotFound", "The specified item could not be found in the keychain."),
        (bufferTooSmall, "errSecBufferTooSmall", "There is not enough memory available to use the specified item."),
        (
            dataTooLarge, "errSecDataTooLarge",
            "This item contains information which is too large or in a format that cannot be displayed."
        ),
        (noSuchAttr, "errSecNoSuchAttr", "The specified attribute does not exist."),
        (
            invalidItemRef, "errSecInvalidItemRef",
            "The specified item is no longer valid. It may have been deleted from the keychain."
        ),
        (invalidSearchRef, "errSecInvalidSearchRef", "Unable to search the current keychain."),
        (noSuchClass, "errSecNoSuchClass", "The specified item does not appear to be a valid keychain item."),
        (noDefaultKeychain, "errSecNoDefaultKeychain", "A default keychain could not be found."),
        (interactionNotAllowed, "errSecInteractionNotAllowed", "User interaction is not allowed."),
        (readOnlyAttr, "errSecReadOnlyAttr", "The specified attribute could not be modified."),
        (
            wrongSecVersion, "errSecWrongSecVersion",
            "This keychain was created by a different version of the system software and cannot be opened."
        ),
        (
            keySizeNotAllowed, "errSecKeySizeNotAllowed",
            "This item specifies a key size which is too large or too small."
        ),
        (
            noStorageModule, "errSecNoStorageModule",
            "A required component (data storage module) could not be loaded. You may need to restart your computer."
        ),
        (
            noCertificateModule, "errSecNoCertificateModule",
            "A required component (certificate module) could not be loaded. You may need to restart your computer."
        ),
        (
            noPolicyModule, "errSecNoPolicyModule",
            "A required component (policy module) could not be loaded. You may need to restart your computer."
        ),
        (
            interactionRequired, "errSecInteractionRequired",
            "User interaction is required, but is currently not allowed."
        ),
        (dataNotAvailable, "errSecDataNotAvailable", "The contents of this item cannot be retrieved."),
        (dataNotModifiable, "errSecDataNotModifiable", "The contents of this item cannot be modified."),
        (
            createChainFailed, "errSecCreateChainFailed",
            "One or more certificates required to validate this certificate cannot be found."
        ),
        (invalidPrefsDomain, "errSecInvalidPrefsDomain", "The specified preferences domain is not valid."),
        (inDarkWake, "errSecInDarkWake", "In dark wake, no UI possible"),
        (aclNotSimple, "errSecACLNotSimple", "The specified access control list is not in standard (simple) form."),
        (policyNotFound, "errSecPolicyNotFound", "The specified policy cannot be found."),
        (invalidTrustSetting, "errSecInvalidTrustSetting", "The specified trust setting is invalid."),
        (noAccessForItem, "errSecNoAccessForItem", "The specified item has no access control."),
        (invalidOwnerEdit, "errSecInvalidOwnerEdit", "Invalid attempt to change the owner of this item."),
        (trustNotAvailable, "errSecTrustNotAvailable", "No trust results are available."),
        (unsupportedFormat, "errSecUnsupportedFormat", "Import/Export format unsupported."),
        (unknownFormat, "errSecUnknownFormat", "Unknown format in import."),
        (keyIsSensitive, "errSecKeyIsSensitive", "Key material must be wrapped for export."),
        (multiplePrivKeys, "errSecMultiplePrivKeys", "An attempt was made to import multiple private keys."),
        (passphraseRequired, "errSecPassphraseRequired", "Passphrase is required for import/export."),
        (invalidPasswordRef, "errSecInvalidPasswordRef", "The password reference was invalid."),
        (invalidTrustSettings, "errSecInvalidTrustSettings", "The Trust Settings Record was corrupted."),
        (noTrustSettings, "errSecNoTrustSettings", "No Trust Settings were found."),
        (
            pkcs12VerifyFailure, "errSecPkcs12VerifyFailure",
            "MAC verification failed during PKCS12 import (wrong password?)"
        ),
        (notSigner, "errSecNotSigner", "A certificate was not signed by its proposed parent."),
        (decode, "errSecDecode", "Unable to decode the provided data."),
        (internalError, "errSecInternal", "An internal error occurred."),
        (serviceNotAvailable, "errSecServiceNotAvailable", "The required service is not available."),
        (verifyFailed, "errSecVerifyFailed", "A cryptographic verification failure has occurred."),
        (hostNameMismatch, "errSecHostNameMismatch", "A host name mismatch has occurred."),
        (certificateExpired, "errSecCertificateExpired", "An expired certificate was detected."),
        (certificateNotValidYet, "errSecCertificateNotValidYet", "The certificate is not yet valid."),
        (notTrusted, "errSecNotTrusted", "The certificate was not trusted."),
    ]

    /// The constant name of `status` (`"errSecItemNotFound"`), or its number.
    public static func name(of status: OSStatus) -> String {
        table.first { $0.code == status }?.name ?? "OSStatus \(status)"
    }

    /// Apple's message for `status` (Apple's fallback wording for unknown codes).
    public static func message(of status: OSStatus) -> String {
        table.first { $0.code == status }?.message ?? "OSStatus \(status)"
    }
}
