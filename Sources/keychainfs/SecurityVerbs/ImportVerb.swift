import ArgumentParser
import Crypto
import Foundation
import KeychainFSImportExport
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// `security import`: certificates and private keys from PEM, DER or PKCS#12 files (encrypted PEM keys and
/// PKCS#12 with `-P`). A file is read whole before anything is added, and a failed add removes what this
/// run added, so a bad file changes nothing.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import certificates and private keys from a PEM, DER or PKCS#12 file (macOS security verb).",
        discussion: """
            PKCS#12 files (.p12, .pfx, or -f pkcs12) are read with the -P passphrase (empty without -P: macOS would \
            ask for it), as are encrypted PEM private keys. A wrong passphrase is errSecAuthFailed.
            """)
    @Argument(help: "The file to import.") var file: String
    @Option(name: .customShort("k"), help: "The vault to import into (default $KEYCHAIN_VAULT).") var keychain: String?
    @Option(name: .customShort("t"), help: "Item type: pub, priv, session, cert or agg (accepted; the file decides).")
    var type: String?
    @Option(
        name: .customShort("f"),
        help: "Format: openssl, pkcs8, x509, pemseq, pkcs12, … (pkcs12 is told by the name .p12/.pfx too).") var format:
        String?
    @Option(name: .customShort("P"), help: "The passphrase of a PKCS#12 file or an encrypted private key.")
    var passphrase: String?
    @Flag(name: .customShort("x"), help: "Make imported private keys non-extractable.") var nonExtractable = false
    @Flag(name: .customShort("A"), help: "Allow any application (accepted; no effect).") var anyApplication = false
    @Option(name: .customShort("T"), help: "Trusted application (accepted; no effect).") var trusted: [String] = []

    /// The largest file read (a PKCS#12 with its chain or a PEM bundle of CA certificates is far smaller).
    static let maximumFileSize = 16 << 20

    func run() throws {
        let operation = "SecKeychainItemImport"
        var target = KeychainArgument()
        target.keychain = keychain.map { [$0] } ?? []
        let connection = try target.connect(for: operation)
        let items: [PEMImport.Item]
        var keyLabel: String?
        do throws(KeychainError) {
            let bounded: Data?
            do { bounded = try BoundedInput.read(path: file, limit: Self.maximumFileSize) } catch {
                throw KeychainError(SecStatus.io, "\(error)")  // names the file and why
            }
            guard let data = bounded else {
                throw KeychainError(
                    SecStatus.param,
                    "\(file) is larger than \(BoundedInput.describe(Self.maximumFileSize)), the limit of an imported file"
                )
            }
            if format == "pkcs12" || [".p12", ".pfx"].contains(where: file.lowercased().hasSuffix) {
                let contents = try PKCS12File.read(data, passphrase: passphrase ?? "")
                items =
                    [contents.privateKey, .certificate(contents.certificate)] + contents.chain.map { .certificate($0) }
                keyLabel = contents.friendlyName
            } else {
                items = try PrivateKeyPEM.items(in: data, passphrase: passphrase)
            }
        } catch {
            throw SecurityOutput.fail(operation, error)
        }
        var added: [KeychainValue] = []
        do throws(KeychainError) {
            for item in items {
                var attributes = item.attributes
                if case .privateKey = item, let keyLabel { attributes[Attributes.label.code] = .string(keyLabel) }
                attributes[QueryKey.returnPersistentRef] = true
                if case .privateKey = item, nonExtractable { attributes[Attributes.isExtractable.code] = false }
                if let ref = try connection.add(attributes) { added.append(ref) }
            }
        } catch {
            for ref in added { try? connection.delete([QueryKey.valuePersistentRef: ref]) }
            throw SecurityOutput.fail(operation, error)
        }
        print(Self.summary(items))
    }

    /// "1 identity imported." and the like: a key and a certificate whose public keys agree count as an identity.
    static func summary(_ items: [PEMImport.Item]) -> String {
        var certificateHashes: [Data] = [], keyHashes: [Data] = []
        for item in items {
            switch item {
            case .certificate(let der):
                certificateHashes.append(
                    CertificateInterpreter.attributes(of: der)?[Attributes.publicKeyHash.code]?.dataValue ?? Data())
            case .privateKey(_, _, let data): keyHashes.append(PEMImport.publicKeyHash(ofPrivateKey: data) ?? Data())
            }
        }
        let identities = keyHashes.filter { !$0.isEmpty && certificateHashes.contains($0) }.count
        let counts = [
            (identities, "identity", "identities"), (keyHashes.count - identities, "key", Schema.key.code),
            (certificateHashes.count - identities, "certificate", "certificates"),
        ]
        return counts.filter { $0.0 > 0 }.map { "\($0.0) \($0.0 == 1 ? $0.1 : $0.2) imported." }.joined(separator: "\n")
    }
}
