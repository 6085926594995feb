import ArgumentParser
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// `keychainfs export-tpm-key --label L -o FILE`: a Secure Enclave key that a TPM made (docs/tpm.md) as its
/// TSS2 PRIVATE KEY file, for `openssl … -provider tpm2`. The file holds the TPM-wrapped object only: it is
/// useless without this TPM. Asked like a use of the key: the lock, its item, its access control.
struct ExportTPMKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-tpm-key",
        abstract:
            "Write a TPM-made Secure Enclave key's TSS2 PRIVATE KEY file (for tpm2-openssl; useless without this TPM).")
    static let operation = "SecKeyCopyTSS2PrivateKey"

    @Option(help: "The key's label (kSecAttrLabel).") var label: String?
    @Option(help: "The key's application tag (kSecAttrApplicationTag), as text.") var tag: String?
    @Option(
        name: .customShort("o"),
        help: "The file to write (new, 0600, never over an existing one); default: standard output.") var output:
        String?
    @OptionGroup var keychain: KeychainArgument

    func validate() throws {
        if (label == nil) == (tag == nil) { throw ValidationError("name the key with one of --label and --tag") }
    }

    func run() throws {
        let connection = try keychain.connect(for: Self.operation)
        var query: KeychainDictionary = [
            QueryKey.class: .string(Schema.key.code), Attributes.tokenID.code: .string(SecureEnclaveBlob.tokenID),
            QueryKey.returnData: true, QueryKey.returnPersistentRef: true, QueryKey.returnAttributes: true,
        ]
        if let label { query[Attributes.label.code] = .string(label) }
        if let tag { query[Attributes.applicationTag.code] = .data(Data(tag.utf8)) }
        do throws(KeychainError) {
            guard let found = try connection.copyMatching(query)?.dictionaryValue,
                let blob = found[QueryKey.valueData]?.dataValue,
                let reference = found[QueryKey.valuePersistentRef]?.dataValue
            else { throw KeychainError(SecStatus.itemNotFound, "no Secure Enclave key matches") }
            var request: KeychainDictionary = [
                "operation": "tss2-key", "blob": .data(blob), "persistentRef": .data(reference),
            ]
            if let accessible = found[Attributes.accessible.code] { request["accessibility"] = accessible }
            guard let pem = try connection.secureEnclave(request)?.dataValue else {
                throw KeychainError(SecStatus.internalError, "the engine answered no key file")
            }
            guard let output else {
                FileHandle.standardOutput.write(pem)
                return
            }
            // Complete or absent, never over anything at `output` (a planted link included).
            try OutsideFile.create(pem, at: output)
        } catch { throw SecurityOutput.fail(Self.operation, error) }
    }
}
