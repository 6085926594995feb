import Foundation
import KeychainFSEngine
import KeychainFSModel

/// A certificate (Apple's `SecCertificate`): its DER and, when it came from the keychain (kSecReturnRef),
/// the item it is, so that it can be passed back as kSecValueRef.
public final class SecCertificate: Sendable {
    let der: Data
    let attributes: KeychainDictionary
    /// The item's persistent reference when the certificate came from the keychain.
    let persistentRef: Data?

    init(der: Data, attributes: KeychainDictionary, persistentRef: Data?) {
        self.der = der
        self.attributes = attributes
        self.persistentRef = persistentRef
    }
}

/// A certificate from its DER; nil if the data is not an X.509 certificate (Apple's `SecCertificateCreateWithData`).
public func SecCertificateCreateWithData(_ allocator: CFAllocator?, _ data: CFData) -> SecCertificate? {
    let der = Data(data)
    guard let attributes = CertificateInterpreter.attributes(of: der) else { return nil }
    return SecCertificate(der: der, attributes: attributes, persistentRef: nil)
}

/// The certificate's DER (Apple's `SecCertificateCopyData`).
public func SecCertificateCopyData(_ certificate: SecCertificate) -> CFData {
    NSData(data: certificate.der)
}

/// The certificate's public key (Apple's `SecCertificateCopyKey`); nil for a key type this module does not
/// compute with (EC P-256/384/521 and RSA are read).
public func SecCertificateCopyKey(_ certificate: SecCertificate) -> SecKey? {
    guard let key = CertificateInterpreter.publicKey(of: certificate.der) else { return nil }
    return SecKeyCreateWithData(
        key.bytes as CFData,
        [kSecAttrKeyType: NSString(string: String(key.type)), kSecAttrKeyClass: kSecAttrKeyClassPublic] as CFDictionary,
        nil)
}

/// A human-readable summary of the subject, its common name (Apple's `SecCertificateCopySubjectSummary`).
/// From the DER, not the item's label, which its owner may have changed.
public func SecCertificateCopySubjectSummary(_ certificate: SecCertificate) -> CFString? {
    CertificateInterpreter.attributes(of: certificate.der)?[Attributes.label.code]?.stringValue.map(
        NSString.init(string:))
}
