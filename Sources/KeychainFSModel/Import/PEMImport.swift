import Crypto
import Foundation
import SwiftASN1

/// Certificates and private keys read from PEM or DER files, as `security import` takes them, turned
/// into the item dictionaries the keychain stores (certificates as DER, EC private keys in Apple's x963
/// form, RSA private keys as PKCS#1 DER). PKCS#12 is not read here yet.
public enum PEMImport {
    /// kSecAttrKeyType of EC and RSA keys.
    public static let keyTypeEC: Int64 = 73, keyTypeRSA: Int64 = 42

    /// One item found in a file.
    public enum Item: Equatable, Sendable {
        case certificate(Data)
        /// A private key: Apple's kSecAttrKeyType (73 EC, 42 RSA), its size in bits and its bytes.
        case privateKey(type: Int64, bits: Int64, data: Data)

        /// The dictionary SecItemAdd takes for this item.
        public var attributes: KeychainDictionary {
            switch self {
            case .certificate(let der):
                return [QueryKey.class: .string(Schema.certificate.code), QueryKey.valueData: .data(der)]
            case .privateKey(let type, let bits, let data):
                return [
                    QueryKey.class: .string(Schema.key.code), Attributes.keyClass.code: 1,
                    Attributes.keyType.code: .number(type),
                    Attributes.keySizeInBits.code: .number(bits), QueryKey.valueData: .data(data),
                ]
            }
        }
    }

    /// The items of a PEM file (every CERTIFICATE and PRIVATE KEY block), or of a DER certificate.
    /// errSecUnknownFormat when neither.
    public static func items(in file: Data) throws(KeychainError) -> [Item] {
        if let text = String(data: file, encoding: .utf8), text.contains("-----BEGIN ") {
            let found = try blocks(text).map { block throws(KeychainError) in
                try item(block.label, block.der, pem: block.pem)
            }
            guard !found.isEmpty else { throw KeychainError(SecStatus.unknownFormat, "no PEM block") }
            return found
        }
        guard CertificateInterpreter.attributes(of: file) != nil else {
            throw KeychainError(SecStatus.unknownFormat, "neither PEM nor a DER X.509 certificate")
        }
        return [.certificate(file)]
    }

    /// SHA-1 of a private key's public key (its default kSecAttrApplicationLabel), as a certificate's
    /// kSecAttrPublicKeyHash: equal when the two make an identity.
    public static func publicKeyHash(ofPrivateKey data: Data) -> Data? {
        KeyInterpreter.publicKeyBytes(data, isPrivate: true).map { Data(Insecure.SHA1.hash(data: $0)) }
    }

    /// A certificate as PEM, 64 columns, as `openssl x509` and `security find-certificate -p` print it.
    public static func pem(_ der: Data, label: String = "CERTIFICATE") -> String {
        let base64 = der.base64EncodedString()
        var lines = ["-----BEGIN \(label)-----"]
        var index = base64.startIndex
        while index < base64.endIndex {
            let end = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
            lines.append(String(base64[index..<end]))
            index = end
        }
        lines.append("-----END \(label)-----")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func blocks(_ text: String) throws(KeychainError) -> [(label: String, der: Data, pem: String)] {
        var result: [(String, Data, String)] = []
        var rest = Substring(text)
        while let begin = rest.range(of: "-----BEGIN ") {
            guard let labelEnd = rest[begin.upperBound...].range(of: "-----") else { break }
            let label = String(rest[begin.upperBound..<labelEnd.lowerBound])
            guard let end = rest[labelEnd.upperBound...].range(of: "-----END \(label)-----") else {
                throw KeychainError(SecStatus.decode, "PEM block \(label) has no END line")
            }
            let body = rest[labelEnd.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(body)) else {
                throw KeychainError(SecStatus.decode, "PEM block \(label) is not base64")
            }
            result.append((label, der, String(rest[begin.lowerBound..<end.upperBound])))
            rest = rest[end.upperBound...]
        }
        return result
    }

    private static func item(_ label: String, _ der: Data, pem: String) throws(KeychainError) -> Item {
        switch label {
        case "CERTIFICATE", "TRUSTED CERTIFICATE", "X509 CERTIFICATE":
            guard CertificateInterpreter.attributes(of: der) != nil else {
                throw KeychainError(SecStatus.decode, "a CERTIFICATE block is not X.509")
            }
            return .certificate(der)
        case "EC PRIVATE KEY", "PRIVATE KEY":
            if let key = ecKey(pem) { return key }
            if label == "PRIVATE KEY", let pkcs1 = rsaFromPKCS8(der) { return try rsa(pkcs1) }
            throw KeychainError(SecStatus.unknownFormat, "unsupported private key (EC P-256/384/521 and RSA are read)")
        case "RSA PRIVATE KEY":
            return try rsa(der)
        case "ENCRYPTED PRIVATE KEY":
            throw KeychainError(
                SecStatus.unimplemented, "encrypted PEM private keys are not read yet (decrypt with openssl pkey first)"
            )
        default:
            throw KeychainError(SecStatus.unknownFormat, "unsupported PEM block \(label)")
        }
    }

    /// An EC private key in Apple's x9.63 form (04 ‖ X ‖ Y ‖ K) as PKCS#8 DER; nil if it is none.
    public static func pkcs8(ecX963 data: Data) -> Data? {
        if let key = try? P256.Signing.PrivateKey(x963Representation: data) { return key.derRepresentation }
        if let key = try? P384.Signing.PrivateKey(x963Representation: data) { return key.derRepresentation }
        if let key = try? P521.Signing.PrivateKey(x963Representation: data) { return key.derRepresentation }
        return nil
    }

    private static func ecKey(_ pem: String) -> Item? {
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
            return .privateKey(type: keyTypeEC, bits: 256, data: key.x963Representation)
        }
        if let key = try? P384.Signing.PrivateKey(pemRepresentation: pem) {
            return .privateKey(type: keyTypeEC, bits: 384, data: key.x963Representation)
        }
        if let key = try? P521.Signing.PrivateKey(pemRepresentation: pem) {
            return .privateKey(type: keyTypeEC, bits: 521, data: key.x963Representation)
        }
        return nil
    }

    private static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 1, 1]

    /// PrivateKeyInfo { version, AlgorithmIdentifier, OCTET STRING PKCS#1 } of an RSA key.
    private static func rsaFromPKCS8(_ der: Data) -> Data? {
        guard let root = try? DER.parse([UInt8](der)), root.children.count >= 3,
            let oidNode = root.children[1].children.first,
            (try? ASN1ObjectIdentifier(derEncoded: oidNode)) == rsaEncryption,
            let inner = root.children[2].primitiveBytes
        else { return nil }
        return Data(inner)
    }

    private static func rsa(_ pkcs1: Data) throws(KeychainError) -> Item {
        guard let root = try? DER.parse([UInt8](pkcs1)), root.children.count >= 9,
            let modulus = root.children[1].primitiveBytes
        else {
            throw KeychainError(SecStatus.decode, "not a PKCS#1 RSA private key")
        }
        let bytes = modulus.drop { $0 == 0 }
        return .privateKey(type: keyTypeRSA, bits: Int64(bytes.count * 8), data: pkcs1)
    }
}
