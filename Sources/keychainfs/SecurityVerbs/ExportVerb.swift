import ArgumentParser
import Foundation
import KeychainFSImportExport
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// `security export`: certificates, keys and identities of a vault as PEM, DER or PKCS#12, with macOS's
/// flags. Secrets are read through the vault's daemon when one serves it (the lock and access rules apply)
/// and go only to the output asked for; `-o` writes the file 0600 atomically (a temporary file renamed
/// over the name, so a symlink planted there is replaced, not followed).
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export certificates, keys and identities to a PEM, DER or PKCS#12 file (macOS security verb).",
        discussion: """
            Formats: x509 (certificates, DER; PEM with -p), pemseq (PEM, any items), openssl and pkcs8 (private keys, \\
            DER; PEM with -p; -w with -P encrypts them with AES-256-CBC), pkcs12 (every identity in one file, with -P). The default is \\
            pkcs12 for identities, openssl for keys and pemseq otherwise. macOS asks for a missing passphrase; \\
            here it is errSecPassphraseRequired.
            """)

    enum ItemType: String, ExpressibleByArgument, CaseIterable {
        case certs, allKeys, pubKeys, privKeys, identities, all
    }

    @Option(name: .customShort("k"), help: "The vault to export from (default $KEYCHAIN_VAULT).") var keychain: String?
    @Option(name: .customShort("t"), help: "certs, allKeys, pubKeys, privKeys, identities or all.") var type: ItemType =
        .all
    @Option(name: .customShort("f"), help: "x509, pemseq, openssl, pkcs8 or pkcs12.") var format: String?
    @Flag(name: .customShort("w"), help: "Wrap (encrypt) private keys with the -P passphrase.") var wrapped = false
    @Flag(name: .customShort("p"), help: "PEM-encode the output.") var pem = false
    @Option(name: .customShort("P"), help: "The passphrase of a PKCS#12 file or of wrapped keys.") var passphrase:
        String?
    @Option(name: .customShort("o"), help: "The file to write (default: standard output).") var output: String?

    static let operation = "SecKeychainItemExport"

    func run() throws {
        var target = KeychainArgument()
        target.keychain = keychain.map { [$0] } ?? []
        let connection = try target.connect(for: Self.operation)
        let bytes: Data
        do throws(KeychainError) {
            bytes = try render(ExportedItems(connection: connection, type: type))
        } catch {
            throw SecurityOutput.fail(Self.operation, error)
        }
        guard let output else {
            FileHandle.standardOutput.write(bytes)
            return
        }
        do { try RenderedFile.write(Array(bytes), to: output, source: "security export", force: true) } catch {
            FileHandle.standardError.write(Data("security: \(Self.operation): \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// The items in the format asked for (or the default for what they are).
    private func render(_ items: ExportedItems) throws(KeychainError) -> Data {
        guard !items.isEmpty else { throw KeychainError(SecStatus.itemNotFound, "nothing to export") }
        let chosen =
            format ?? (type == .identities ? "pkcs12" : [.privKeys, .allKeys].contains(type) ? "openssl" : "pemseq")
        switch chosen {
        case "pkcs12":
            guard let passphrase else {
                throw KeychainError(SecStatus.passphraseRequired, "a PKCS#12 file needs a passphrase: give it with -P")
            }
            return try PKCS12File.make(
                items.identities.map {
                    PKCS12File.Identity(privateKey: $0.key, certificate: $0.certificate, friendlyName: $0.label)
                },
                passphrase: passphrase)
        case "x509":
            guard items.privateKeys.isEmpty, items.publicKeys.isEmpty, pem || items.certificates.count == 1 else {
                throw KeychainError(
                    SecStatus.param, "x509 holds one certificate in DER (use -p or pemseq for several, or other items)")
            }
            return pem ? Data(items.certificates.map { PEMImport.pem($0) }.joined().utf8) : items.certificates[0]
        case "openssl", "pkcs8":
            guard items.certificates.isEmpty, items.publicKeys.isEmpty || items.privateKeys.isEmpty else {
                throw KeychainError(SecStatus.param, "\(chosen) holds keys only (use pemseq for certificates)")
            }
            // Several DER keys in one output could not be told apart: PEM then.
            return try keys(
                items, form: chosen == "pkcs8" ? .pkcs8 : .traditional,
                pem: pem || items.privateKeys.count + items.publicKeys.count > 1)
        case "pemseq":
            return Data(items.certificates.map { PEMImport.pem($0) }.joined().utf8)
                + (try keys(items, form: .pkcs8, pem: true))
        default:
            throw KeychainError(
                SecStatus.unimplemented, "format '\(chosen)' is not supported (x509, pemseq, openssl, pkcs8, pkcs12)")
        }
    }

    private func keys(_ items: ExportedItems, form: PrivateKeyPEM.Form, pem: Bool) throws(KeychainError) -> Data {
        if wrapped && passphrase == nil {
            throw KeychainError(SecStatus.passphraseRequired, "-w needs the wrapping passphrase: give it with -P")
        }
        var out = Data()
        for key in items.privateKeys {
            out += try PrivateKeyPEM.export(key, form: form, pem: pem, passphrase: wrapped ? passphrase : nil)
        }
        for key in items.publicKeys { out += try PublicKeyFile.encode(type: key.type, data: key.data, pem: pem) }
        return out
    }
}
