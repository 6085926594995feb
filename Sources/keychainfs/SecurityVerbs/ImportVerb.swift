import ArgumentParser
import Crypto
import Foundation
import KeychainClient
import KeychainEngine

/// `security import`: certificates and private keys from PEM or DER files. A file is read whole before
/// anything is added, and a failed add removes what this run added, so a bad file changes nothing.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import certificates and private keys from a PEM or DER file (macOS security verb).",
        discussion: "PKCS#12 (.p12) files are not read yet: convert with 'openssl pkcs12 -nodes' and import the PEM.")
    @Argument(help: "The file to import.") var file: String
    @Option(name: .customShort("k"), help: "The vault to import into (default $KEYCHAIN_VAULT).") var keychain: String?
    @Option(name: .customShort("t"), help: "Item type: pub, priv, session, cert or agg (accepted; the file decides).") var type: String?
    @Option(name: .customShort("f"), help: "Format: openssl, pkcs8, x509, pemseq, pkcs12, … (the file decides; pkcs12 is refused).") var format: String?
    @Option(name: .customShort("P"), help: "Passphrase (for PKCS#12: not read yet).") var passphrase: String?
    @Flag(name: .customShort("x"), help: "Make imported private keys non-extractable.") var nonExtractable = false
    @Flag(name: .customShort("A"), help: "Allow any application (accepted; no effect).") var anyApplication = false
    @Option(name: .customShort("T"), help: "Trusted application (accepted; no effect).") var trusted: [String] = []

    func run() throws {
        let operation = "SecKeychainItemImport"
        var target = KeychainArgument()
        target.keychain = keychain.map { [$0] } ?? []
        let connection = try target.connect(for: operation)
        let items: [PEMImport.Item]
        do throws(KeychainError) {
            guard format != "pkcs12" && !file.hasSuffix(".p12") && !file.hasSuffix(".pfx") else {
                throw KeychainError(SecStatus.unimplemented, "PKCS#12 files are not read yet")
            }
            guard let data = FileManager.default.contents(atPath: file) else { throw KeychainError(SecStatus.io, "cannot read \(file)") }
            items = try PEMImport.items(in: data)
        } catch {
            throw SecurityOutput.fail(operation, error)
        }
        var added: [KeychainValue] = []
        do throws(KeychainError) {
            for item in items {
                var attributes = item.attributes
                attributes[SecKey.returnPersistentRef] = true
                if case .privateKey = item, nonExtractable { attributes["extr"] = false }
                if let ref = try connection.add(attributes) { added.append(ref) }
            }
        } catch {
            for ref in added { try? connection.delete([SecKey.valuePersistentRef: ref]) }
            throw SecurityOutput.fail(operation, error)
        }
        print(Self.summary(items))
    }

    /// "1 identity imported." and the like: a key and a certificate whose public keys agree count as an identity.
    static func summary(_ items: [PEMImport.Item]) -> String {
        var certificateHashes: [Data] = [], keyHashes: [Data] = []
        for item in items {
            switch item {
            case .certificate(let der): certificateHashes.append(CertificateInterpreter.attributes(of: der)?[Attributes.publicKeyHash.code]?.dataValue ?? Data())
            case .privateKey(_, _, let data): keyHashes.append(PEMImport.publicKeyHash(ofPrivateKey: data) ?? Data())
            }
        }
        let identities = keyHashes.filter { !$0.isEmpty && certificateHashes.contains($0) }.count
        let counts = [(identities, "identity", "identities"), (keyHashes.count - identities, "key", "keys"),
                      (certificateHashes.count - identities, "certificate", "certificates")]
        return counts.filter { $0.0 > 0 }.map { "\($0.0) \($0.0 == 1 ? $0.1 : $0.2) imported." }.joined(separator: "\n")
    }
}
