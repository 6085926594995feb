import Crypto
import Foundation
import SwiftASN1

/// Attributes of an X.509 certificate from its DER (docs/reference/keychain-semantics.md §2.5), as Apple's client derives them:
/// type and encoding, subject and issuer (the Name's content octets, as the data-protection keychain
/// returns them), serial number (the INTEGER's content octets), subject key id, public key hash
/// (SHA-1 of the subjectPublicKey bits) and, as the default label, the subject's common name.
public enum CertificateInterpreter {
    package static let interpreter = ValueInterpreter { der, _ throws(KeychainError) in
        guard let parsed = try? parse(der) else {
            throw KeychainError(SecStatus.param, "kSecValueData is not a DER X.509 certificate")
        }
        return parsed
    }

    /// CSSM_CERT_ENCODING_DER.
    package static let derEncoding: Int64 = 3

    package static func parse(_ der: Data) throws -> ValueInterpreter.Derived {
        let root = try DER.parse([UInt8](der))
        guard root.identifier == .sequence, root.children.count == 3, root.children[0].identifier == .sequence else {
            throw ASN1Error.invalidASN1Object(reason: "not a certificate")
        }
        var fields = root.children[0].children[...]
        var version: Int64 = 1
        if let first = fields.first, first.isContextSpecific(0) {
            guard let integer = first.children.first?.primitiveBytes, integer.count == 1 else {
                throw ASN1Error.invalidASN1Object(reason: "version")
            }
            version = Int64(integer.first!) + 1
            fields = fields.dropFirst()
        }
        let tbs = Array(fields)
        guard tbs.count >= 6, tbs[0].identifier == .integer, let serial = tbs[0].primitiveBytes,
            tbs[2].identifier == .sequence, tbs[4].identifier == .sequence, tbs[5].identifier == .sequence,
            tbs[5].children.count == 2, let bits = tbs[5].children[1].primitiveBytes, !bits.isEmpty
        else { throw ASN1Error.invalidASN1Object(reason: "tbsCertificate") }

        var derived = ValueInterpreter.Derived()
        derived.determined = [
            Attributes.certificateType.code: .number(version),
            Attributes.certificateEncoding.code: .number(derEncoding),
            Attributes.issuer.code: .data(Data(tbs[2].contentBytes)),
            Attributes.subject.code: .data(Data(tbs[4].contentBytes)),
            Attributes.serialNumber.code: .data(Data(serial)),
            Attributes.publicKeyHash.code: .data(Data(Insecure.SHA1.hash(data: bits.dropFirst()))),
        ]
        if let skid = try subjectKeyIdentifier(tbs.dropFirst(6)) {
            derived.determined[Attributes.subjectKeyID.code] = .data(Data(skid))
        }
        derived.defaults[Attributes.label.code] = .string(try summary(of: tbs[4]))
        return derived
    }

    /// The certificate's public key in Apple's external form (the subjectPublicKeyInfo's bits: an x9.63 point
    /// for EC, PKCS#1 for RSA) and its kSecAttrKeyType; nil if the DER is not a certificate.
    public static func publicKey(of der: Data) -> (type: Int64, bytes: Data)? {
        guard let root = try? DER.parse([UInt8](der)), root.children.count == 3 else { return nil }
        let fields = root.children[0].children.drop { $0.isContextSpecific(0) }
        let tbs = Array(fields)
        guard tbs.count >= 6, tbs[5].children.count == 2, let bits = tbs[5].children[1].primitiveBytes, bits.count > 1
        else { return nil }
        let key = Data(bits.dropFirst())
        return (key.first == 0x04 ? PEMImport.keyTypeEC : PEMImport.keyTypeRSA, key)
    }

    private static let subjectKeyIdentifierOID: ASN1ObjectIdentifier = [2, 5, 29, 14]

    private static func subjectKeyIdentifier(_ optionalFields: ArraySlice<ASN1Node>) throws -> ArraySlice<UInt8>? {
        guard let wrapper = optionalFields.first(where: { $0.isContextSpecific(3) }), let list = wrapper.children.first
        else { return nil }
        for extensionNode in list.children {
            let parts = extensionNode.children
            guard let oidNode = parts.first, try ASN1ObjectIdentifier(derEncoded: oidNode) == subjectKeyIdentifierOID,
                let value = parts.last?.primitiveBytes
            else { continue }
            return try DER.parse(Array(value)).primitiveBytes
        }
        return nil
    }

    /// Common name, else organisation, else organisational unit, else e-mail address: the subject summary.
    private static func summary(of name: ASN1Node) throws -> String {
        var values: [ASN1ObjectIdentifier: String] = [:]
        for rdn in name.children {
            for pair in rdn.children {
                let parts = pair.children
                guard parts.count == 2, let text = string(parts[1]) else { continue }
                values[try ASN1ObjectIdentifier(derEncoded: parts[0])] = text
            }
        }
        let preference: [ASN1ObjectIdentifier] = [
            [2, 5, 4, 3], [2, 5, 4, 10], [2, 5, 4, 11], [1, 2, 840, 113_549, 1, 9, 1],
        ]
        return preference.lazy.compactMap { values[$0] }.first ?? "certificate"
    }

    private static func string(_ node: ASN1Node) -> String? {
        guard let bytes = node.primitiveBytes else { return nil }
        if node.identifier == .bmpString {
            let units = stride(from: bytes.startIndex, to: bytes.endIndex - 1, by: 2).map {
                UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1])
            }
            return String(decoding: units, as: UTF16.self)
        }
        return String(validating: bytes, as: UTF8.self) ?? String(bytes.map { Character(Unicode.Scalar($0)) })
    }
}

extension CertificateInterpreter {
    /// The attributes the keychain derives from a certificate's DER (subject, issuer, serial number, …,
    /// and the subject summary as `labl`); nil if `der` is not an X.509 certificate. For clients that
    /// hold a certificate outside the keychain (`SecCertificateCreateWithData`).
    public static func attributes(of der: Data) -> [String: KeychainValue]? {
        guard let derived = try? parse(der) else { return nil }
        return derived.defaults.merging(derived.determined) { $1 }
    }
}
