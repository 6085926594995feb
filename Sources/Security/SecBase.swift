import Foundation
import KeychainFSEngine
import KeychainFSModel

// Every errSec… code of SecBase.h, from the engine's one table (SecStatus).

public let errSecSuccess: OSStatus = SecStatus.success
public let errSecUnimplemented: OSStatus = SecStatus.unimplemented
public let errSecDiskFull: OSStatus = SecStatus.diskFull
public let errSecIO: OSStatus = SecStatus.io
public let errSecOpWr: OSStatus = SecStatus.opWr
public let errSecParam: OSStatus = SecStatus.param
public let errSecWrPerm: OSStatus = SecStatus.wrPerm
public let errSecAllocate: OSStatus = SecStatus.allocate
public let errSecUserCanceled: OSStatus = SecStatus.userCanceled
public let errSecBadReq: OSStatus = SecStatus.badReq
public let errSecInternalComponent: OSStatus = SecStatus.internalComponent
public let errSecCoreFoundationUnknown: OSStatus = SecStatus.coreFoundationUnknown
public let errSecMissingEntitlement: OSStatus = SecStatus.missingEntitlement
public let errSecRestrictedAPI: OSStatus = SecStatus.restrictedAPI
public let errSecNotAvailable: OSStatus = SecStatus.notAvailable
public let errSecReadOnly: OSStatus = SecStatus.readOnly
public let errSecAuthFailed: OSStatus = SecStatus.authFailed
public let errSecNoSuchKeychain: OSStatus = SecStatus.noSuchKeychain
public let errSecInvalidKeychain: OSStatus = SecStatus.invalidKeychain
public let errSecDuplicateKeychain: OSStatus = SecStatus.duplicateKeychain
public let errSecDuplicateCallback: OSStatus = SecStatus.duplicateCallback
public let errSecInvalidCallback: OSStatus = SecStatus.invalidCallback
public let errSecDuplicateItem: OSStatus = SecStatus.duplicateItem
public let errSecItemNotFound: OSStatus = SecStatus.itemNotFound
public let errSecBufferTooSmall: OSStatus = SecStatus.bufferTooSmall
public let errSecDataTooLarge: OSStatus = SecStatus.dataTooLarge
public let errSecNoSuchAttr: OSStatus = SecStatus.noSuchAttr
public let errSecInvalidItemRef: OSStatus = SecStatus.invalidItemRef
public let errSecInvalidSearchRef: OSStatus = SecStatus.invalidSearchRef
public let errSecNoSuchClass: OSStatus = SecStatus.noSuchClass
public let errSecNoDefaultKeychain: OSStatus = SecStatus.noDefaultKeychain
public let errSecInteractionNotAllowed: OSStatus = SecStatus.interactionNotAllowed
public let errSecReadOnlyAttr: OSStatus = SecStatus.readOnlyAttr
public let errSecWrongSecVersion: OSStatus = SecStatus.wrongSecVersion
public let errSecKeySizeNotAllowed: OSStatus = SecStatus.keySizeNotAllowed
public let errSecNoStorageModule: OSStatus = SecStatus.noStorageModule
public let errSecNoCertificateModule: OSStatus = SecStatus.noCertificateModule
public let errSecNoPolicyModule: OSStatus = SecStatus.noPolicyModule
public let errSecInteractionRequired: OSStatus = SecStatus.interactionRequired
public let errSecDataNotAvailable: OSStatus = SecStatus.dataNotAvailable
public let errSecDataNotModifiable: OSStatus = SecStatus.dataNotModifiable
public let errSecCreateChainFailed: OSStatus = SecStatus.createChainFailed
public let errSecInvalidPrefsDomain: OSStatus = SecStatus.invalidPrefsDomain
public let errSecInDarkWake: OSStatus = SecStatus.inDarkWake
public let errSecACLNotSimple: OSStatus = SecStatus.aclNotSimple
public let errSecPolicyNotFound: OSStatus = SecStatus.policyNotFound
public let errSecInvalidTrustSetting: OSStatus = SecStatus.invalidTrustSetting
public let errSecNoAccessForItem: OSStatus = SecStatus.noAccessForItem
public let errSecInvalidOwnerEdit: OSStatus = SecStatus.invalidOwnerEdit
public let errSecTrustNotAvailable: OSStatus = SecStatus.trustNotAvailable
public let errSecUnsupportedFormat: OSStatus = SecStatus.unsupportedFormat
public let errSecUnknownFormat: OSStatus = SecStatus.unknownFormat
public let errSecKeyIsSensitive: OSStatus = SecStatus.keyIsSensitive
public let errSecMultiplePrivKeys: OSStatus = SecStatus.multiplePrivKeys
public let errSecPassphraseRequired: OSStatus = SecStatus.passphraseRequired
public let errSecInvalidPasswordRef: OSStatus = SecStatus.invalidPasswordRef
public let errSecInvalidTrustSettings: OSStatus = SecStatus.invalidTrustSettings
public let errSecNoTrustSettings: OSStatus = SecStatus.noTrustSettings
public let errSecPkcs12VerifyFailure: OSStatus = SecStatus.pkcs12VerifyFailure
public let errSecNotSigner: OSStatus = SecStatus.notSigner
public let errSecDecode: OSStatus = SecStatus.decode
public let errSecInternal: OSStatus = SecStatus.internalError
public let errSecServiceNotAvailable: OSStatus = SecStatus.serviceNotAvailable
public let errSecVerifyFailed: OSStatus = SecStatus.verifyFailed
public let errSecHostNameMismatch: OSStatus = SecStatus.hostNameMismatch
public let errSecCertificateExpired: OSStatus = SecStatus.certificateExpired
public let errSecCertificateNotValidYet: OSStatus = SecStatus.certificateNotValidYet
public let errSecNotTrusted: OSStatus = SecStatus.notTrusted

/// Apple's message for an OSStatus (`SecCopyErrorMessageString(errSecItemNotFound, nil)`).
public func SecCopyErrorMessageString(_ status: OSStatus, _ reserved: UnsafeMutableRawPointer?) -> CFString? {
    NSString(string: SecStatus.message(of: status))
}
