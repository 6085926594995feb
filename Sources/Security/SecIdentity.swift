import Foundation

/// An identity (Apple's `SecIdentity`): a certificate and the private key that goes with it.
public final class SecIdentity: Sendable {
    let certificate: SecCertificate
    let privateKey: SecKey
    let persistentRef: Data?

    init(certificate: SecCertificate, privateKey: SecKey, persistentRef: Data?) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.persistentRef = persistentRef
    }
}

/// The identity's certificate (Apple's `SecIdentityCopyCertificate`).
public func SecIdentityCopyCertificate(
    _ identityRef: SecIdentity, _ certificateRef: UnsafeMutablePointer<SecCertificate?>
) -> OSStatus {
    certificateRef.pointee = identityRef.certificate
    return errSecSuccess
}

/// The identity's private key (Apple's `SecIdentityCopyPrivateKey`).
public func SecIdentityCopyPrivateKey(_ identityRef: SecIdentity, _ privateKeyRef: UnsafeMutablePointer<SecKey?>)
    -> OSStatus
{
    privateKeyRef.pointee = identityRef.privateKey
    return errSecSuccess
}
