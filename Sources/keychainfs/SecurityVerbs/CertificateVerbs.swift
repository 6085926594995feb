import ArgumentParser
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// `security find-certificate` and `find-identity`, with macOS's flags, output and exit codes (44: none
/// found). Through the vault's daemon when one serves it, so the lock applies (36 while locked).
enum CertificateVerbs {
    /// Every item of `classCode` with its attributes and data (a certificate's DER; an identity's is its certificate's).
    static func all(_ classCode: String, keychain: KeychainArgument) throws -> (
        KeychainConnection, [[String: KeychainValue]]
    ) {
        let connection = try keychain.connect(for: "SecKeychainSearchCopyNext")
        do {
            let query: KeychainDictionary = [
                QueryKey.class: .string(classCode), QueryKey.returnAttributes: true, QueryKey.returnData: true,
                QueryKey.matchLimit: .string(QueryKey.matchLimitAll),
            ]
            let found = try connection.copyMatching(query.includingSynchronizable)
            return (connection, found?.arrayValue?.compactMap(\.dictionaryValue) ?? [])
        } catch let error where error.status == SecStatus.itemNotFound {
            return (connection, [])
        } catch {
            throw SecurityOutput.fail("SecKeychainSearchCopyNext", error)
        }
    }
}

struct FindCertificate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-certificate", abstract: "Find certificates (macOS security verb).")
    @Flag(name: .customShort("a"), help: "Find all matching certificates, not just the first one.") var all = false
    @Option(name: .customShort("c"), help: "Match certificates whose name (subject summary or label) contains this.")
    var name: String?
    @Option(name: .customShort("e"), help: "Match certificates with this e-mail address (subject or subjectAltName).")
    var email: String?
    @Flag(name: .customShort("m"), help: "Show the e-mail addresses in the certificate.") var showEmail = false
    @Flag(name: .customShort("p"), help: "Output the certificate in PEM format.") var pem = false
    @Flag(name: .customShort("Z"), help: "Print the SHA-256 and SHA-1 hashes of the certificate.") var hashes = false
    @OptionGroup var keychain: KeychainArgument

    func run() throws {
        let (connection, certificates) = try CertificateVerbs.all(Schema.certificate.code, keychain: keychain)
        let matches = certificates.compactMap { item -> ([String: KeychainValue], Data, CertificateDetails)? in
            guard let der = item[QueryKey.valueData]?.dataValue, let details = CertificateDetails(der: der) else {
                return nil
            }
            if let name, !details.name.contains(name), item[Attributes.label.code]?.stringValue?.contains(name) != true
            {
                return nil
            }
            if let email, !details.emailAddresses.contains(where: { $0.caseInsensitiveCompare(email) == .orderedSame })
            {
                return nil
            }
            return (item, der, details)
        }
        guard !matches.isEmpty else {
            throw SecurityOutput.fail("SecKeychainSearchCopyNext", KeychainError(SecStatus.itemNotFound, "not found"))
        }
        for (item, der, details) in all ? matches : [matches[0]] {
            if hashes {
                print("SHA-256 hash: \(SecurityOutput.hex(details.sha256))")
                print("SHA-1 hash: \(SecurityOutput.hex(details.sha1))")
            }
            if showEmail {
                print(
                    "email addresses: "
                        + details.emailAddresses.map { SecurityOutput.escaped($0.utf8) }.joined(separator: ", "))
            }
            if pem {
                print(PEMImport.pem(der), terminator: "")
            } else {
                SecurityOutput.printCertificate(item, vault: connection.vault)
            }
        }
    }
}

struct FindIdentity: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-identity",
        abstract: "Find identities: certificates with their private keys (macOS security verb).")
    @Option(name: .customShort("p"), help: "Policy to evaluate (repeatable): \(Policy.names.joined(separator: ", ")).")
    var policies: [String] = []
    @Option(name: .customShort("s"), help: "Policy-specific string (accepted; no trust evaluation here).")
    var policyString: String?
    @Flag(name: .customShort("v"), help: "Show valid identities only.") var validOnly = false
    @OptionGroup var keychain: KeychainArgument

    /// macOS's policy names and how find-identity titles them.
    enum Policy {
        static let titles: [(name: String, title: String)] = [
            ("basic", "X509 Basic"), ("ssl-client", "SSL Client"), ("ssl-server", "SSL Server"), ("smime", "SMIME"),
            ("eap", "EAP"),
            ("ipsec", "IPSec"), ("ichat", "iChat"), ("codesigning", "Code Signing"), ("sys-default", "System Default"),
            ("sys-kerberos-kdc", "System Kerberos KDC"), ("macappstore", "Mac App Store"), ("appleID", "Apple ID"),
        ]
        static var names: [String] { titles.map(\.name) }
    }

    func validate() throws {
        if let unknown = policies.first(where: { !Policy.names.contains($0) }) {
            throw ValidationError("unknown policy '\(unknown)': use one of \(Policy.names.joined(separator: ", "))")
        }
    }

    func run() throws {
        let (_, identities) = try CertificateVerbs.all(Schema.identity.code, keychain: keychain)
        let details = identities.compactMap { $0[QueryKey.valueData]?.dataValue.flatMap(CertificateDetails.init(der:)) }
        let now = Date()
        func line(_ index: Int, _ d: CertificateDetails, withReason: Bool) -> String {
            var text = "  \(index)) \(SecurityOutput.hex(d.sha1)) \(SecurityOutput.quoted(d.name.utf8))"
            if withReason, !d.isValid(at: now) {
                text +=
                    (d.notBefore.map { $0 > now } ?? false)
                    ? " (CSSMERR_TP_CERT_NOT_VALID_YET)" : " (CSSMERR_TP_CERT_EXPIRED)"
            }
            return text
        }
        let valid = details.filter { $0.isValid(at: now) }
        if validOnly {
            for (index, d) in valid.enumerated() { print(line(index + 1, d, withReason: false)) }
            print("     \(valid.count) valid identities found")
            return
        }
        for policy in policies.isEmpty ? ["basic"] : policies {
            print("\nPolicy: \(Policy.titles.first { $0.name == policy }!.title)")
            print("  Matching identities")
            for (index, d) in details.enumerated() { print(line(index + 1, d, withReason: true)) }
            print("     \(details.count) identities found\n")
            print("  Valid identities only")
            for (index, d) in valid.enumerated() { print(line(index + 1, d, withReason: false)) }
            print("     \(valid.count) valid identities found")
        }
    }
}
