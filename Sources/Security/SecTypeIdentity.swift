import CoreFoundation
import Foundation

/// A ref object with a CoreFoundation type id (`CFGetTypeID(ref) == SecKeyGetTypeID()`). The ids lie far
/// above CoreFoundation's own, which count up from 1.
protocol SecTypeIdentified: AnyObject {
    static var typeID: CFTypeID { get }
}

extension SecKey: SecTypeIdentified { static let typeID: CFTypeID = 0x5EC0_0001 }
extension SecCertificate: SecTypeIdentified { static let typeID: CFTypeID = 0x5EC0_0002 }
extension SecIdentity: SecTypeIdentified { static let typeID: CFTypeID = 0x5EC0_0003 }
extension SecAccessControl: SecTypeIdentified { static let typeID: CFTypeID = 0x5EC0_0004 }
extension SecTrust: SecTypeIdentified { static let typeID: CFTypeID = 0x5EC0_0005 }
extension SecPolicy: SecTypeIdentified { static let typeID: CFTypeID = 0x5EC0_0006 }

/// The type id of keys (Apple's `SecKeyGetTypeID`).
public func SecKeyGetTypeID() -> CFTypeID { SecKey.typeID }
/// The type id of certificates (Apple's `SecCertificateGetTypeID`).
public func SecCertificateGetTypeID() -> CFTypeID { SecCertificate.typeID }
/// The type id of identities (Apple's `SecIdentityGetTypeID`).
public func SecIdentityGetTypeID() -> CFTypeID { SecIdentity.typeID }
/// The type id of access-control objects (Apple's `SecAccessControlGetTypeID`).
public func SecAccessControlGetTypeID() -> CFTypeID { SecAccessControl.typeID }
/// The type id of trust objects (Apple's `SecTrustGetTypeID`).
public func SecTrustGetTypeID() -> CFTypeID { SecTrust.typeID }
/// The type id of policies (Apple's `SecPolicyGetTypeID`).
public func SecPolicyGetTypeID() -> CFTypeID { SecPolicy.typeID }

// `CFGetTypeID` on this module's objects, preferred over CoreFoundation's (which knows only its own
// objects) in files that import CoreFoundation: a more specific parameter wins.

/// The type id of a key.
public func CFGetTypeID(_ cf: SecKey) -> CFTypeID { SecKey.typeID }
/// The type id of a certificate.
public func CFGetTypeID(_ cf: SecCertificate) -> CFTypeID { SecCertificate.typeID }
/// The type id of an identity.
public func CFGetTypeID(_ cf: SecIdentity) -> CFTypeID { SecIdentity.typeID }
/// The type id of an access-control object.
public func CFGetTypeID(_ cf: SecAccessControl) -> CFTypeID { SecAccessControl.typeID }
/// The type id of a trust object.
public func CFGetTypeID(_ cf: SecTrust) -> CFTypeID { SecTrust.typeID }
/// The type id of a policy.
public func CFGetTypeID(_ cf: SecPolicy) -> CFTypeID { SecPolicy.typeID }
