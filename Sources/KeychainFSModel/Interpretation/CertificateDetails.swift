import Crypto
import Foundation
import SwiftASN1

/// What macOS's `security find-certificate` and `find-identity` print of a certificate beyond its keychain
/// attributes: fingerprints, the subject summary, the validity period and the e-mail addresses.
public struct CertificateDetails: Sendable {
    public let sha1: Data
    public let sha256: Data
    /// The subject summary (common name, else organisation, …), as the label defaults to.
    public let name: String
    public let notBefore: Date?
    public let notAfter: Date?
    /// The subject's emailAddress and the subjectAltName's rfc822Name entries.
    public let emailAddresses: [String]

    /// The details of `der`; nil if it is not an X.509 certificate.
    public init?(der: Data) {
        guard let attributes = CertificateInterpreter.attributes(of: der), let root = try? DER.parse([UInt8](der)),
            let tbs = root.children.first?.children
        else { return nil }
        var fields = Array(tbs)
        if let first = fields.first, first.isContextSpecific(0) { fields.removeFirst() }
        guard fields.count >= 6 else { return nil }
        sha1 = Data(Insecure.SHA1.hash(data: der))
        sha256 = Data(SHA256.hash(data: der))
        name = attributes[Attributes.label.code]?.stringValue ?? "certificate"
        let validity = fields[3].children
        notBefore = validity.first.flatMap(Self.date)
        notAfter = validity.dropFirst().first.flatMap(Self.date)
        emailAddresses = Self.subjectEmails(fields[4]) + Self.alternativeEmails(fields.dropFirst(6))
    }

    /// Whether the certificate is within its validity period at `date`.
    public func isValid(at date: Date = Date()) -> Bool {
        (notBefore.map { $0 <= date } ?? false) && (notAfter.map { date <= $0 } ?? false)
    }

    private static func date(_ node: ASN1Node) -> Date? {
        var parts = DateComponents()
        parts.timeZone = TimeZone(identifier: "UTC")
        if let time = try? UTCTime(derEncoded: node) {
            (parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second) = (
                time.year, time.month, time.day, time.hours, time.minutes, time.seconds
            )
        } else if let time = try? GeneralizedTime(derEncoded: node) {
            (parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second) = (
                time.year, time.month, time.day, time.hours, time.minutes, time.seconds
            )
        } else {
            return nil
        }
        return Calendar(identifier: .gregorian).date(from: parts)
    }

    private static let emailOID: ASN1ObjectIdentifier = [1, 2, 840, 113_549, 1, 9, 1]
    private static let subjectAltNameOID: ASN1ObjectIdentifier = [2, 5, 29, 17]

    private static func subjectEmails(_ name: ASN1Node) -> [String] {
        name.children.flatMap { $0.children }.compactMap { pair -> String? in
            let parts = Array(pair.children)
            guard parts.count == 2, (try? ASN1ObjectIdentifier(derEncoded: parts[0])) == emailOID,
                let bytes = parts[1].primitiveBytes
            else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    private static func alternativeEmails(_ optionalFields: ArraySlice<ASN1Node>) -> [String] {
        guard let list = optionalFields.first(where: { $0.isContextSpecific(3) })?.children.first else { return [] }
        for extensionNode in list.children {
            let parts = Array(extensionNode.children)
            guard let oid = parts.first, (try? ASN1ObjectIdentifier(derEncoded: oid)) == subjectAltNameOID,
                let value = parts.last?.primitiveBytes, let names = try? DER.parse(Array(value))
            else { continue }
            // GeneralName rfc822Name is [1] IA5String, implicitly tagged.
            return names.children.filter { $0.isContextSpecific(1) }.compactMap {
                $0.primitiveBytes.map { String(decoding: $0, as: UTF8.self) }
            }
        }
        return []
    }
}
