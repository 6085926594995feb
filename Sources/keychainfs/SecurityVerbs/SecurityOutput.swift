import ArgumentParser
import Foundation
import KeychainFSClient
import KeychainFSEngine
import KeychainFSModel

/// What macOS `security` prints and how it exits, so that scripts written for a Mac run unchanged.
enum SecurityOutput {
    /// The attributes `security` shows per class, with their printed types.
    static func shownAttributes(_ classCode: String) -> [(code: String, type: String)] {
        let common: [(String, String)] = [
            (Attributes.account.code, "blob"), (Attributes.creationDate.code, "timedate"),
            (Attributes.creator.code, "uint32"), (Attributes.hasCustomIcon.code, "sint32"),
            (Attributes.description.code, "blob"),
            (Attributes.comment.code, "blob"), (Attributes.isInvisible.code, "sint32"),
            (Attributes.modificationDate.code, "timedate"), (Attributes.isNegative.code, "sint32"), ("prot", "blob"),
            (Attributes.scriptCode.code, "sint32"), (Attributes.type.code, "uint32"),
        ]
        let own: [(String, String)] =
            classCode == Schema.internetPassword.code
            ? [
                (Attributes.authenticationType.code, "blob"), (Attributes.path.code, "blob"),
                (Attributes.port.code, "uint32"), (Attributes.protocol.code, "uint32"),
                (Attributes.securityDomain.code, "blob"), (Attributes.server.code, "blob"),
            ]
            : [(Attributes.generic.code, "blob"), (Attributes.service.code, "blob")]
        return (common + own).sorted { $0.0 < $1.0 }.map { (code: $0.0, type: $0.1) }
    }

    /// `keychain: … / version: 512 / class: … / attributes: …` as macOS prints an item.
    static func printItem(
        _ attributes: [String: KeychainValue], classCode: String, vault: Vault, withVersion: Bool = true
    ) {
        print("keychain: " + buffer(vault.directory.utf8))
        if withVersion { print("version: 512") }
        print("class: \"\(classCode)\"")
        print("attributes:")
        print("    0x00000007 <blob>=\(format(attributes[Attributes.label.code], type: "blob"))")
        print("    0x00000008 <blob>=<NULL>")
        for (code, type) in shownAttributes(classCode) where code != "prot" || attributes[code] != nil {
            print("    \"\(code)\"<\(type)>=\(format(attributes[code], type: type))")
        }
    }

    /// A certificate as `find-certificate` prints it (class 0x80001000, its attributes by four-char code).
    static func printCertificate(_ attributes: [String: KeychainValue], vault: Vault) {
        print("keychain: " + buffer(vault.directory.utf8))
        print("version: 256")
        print("class: 0x80001000 ")
        print("attributes:")
        let shown: [(code: String, type: String)] = [
            (Attributes.alias.code, "blob"), (Attributes.certificateEncoding.code, "uint32"),
            (Attributes.certificateType.code, "uint32"), ("hpky", "blob"), ("issu", "blob"),
            (Attributes.label.code, "blob"), (Attributes.subjectKeyID.code, "blob"), ("snbr", "blob"),
            (Attributes.subject.code, "blob"),
        ]
        for (code, type) in shown {
            let value = code == "hpky" ? attributes[Attributes.publicKeyHash.code] : attributes[code]
            print("    \"\(code)\"<\(type)>=\(format(value, type: type))")
        }
    }

    static func format(_ value: KeychainValue?, type: String) -> String {
        switch value {
        case nil: return "<NULL>"
        case .string(let s)?: return buffer(s.utf8)
        case .data(let d)?: return buffer(d)
        case .number(let n)?: return String(format: "0x%08X ", UInt32(truncatingIfNeeded: n))
        case .bool(let b)?: return String(format: "0x%08X ", b ? 1 : 0)
        case .date(let date)?:
            let formatter = DateFormatter()
            formatter.dateFormat = "yyyyMMddHHmmss'Z'"
            formatter.timeZone = TimeZone(identifier: "UTC")
            let text = formatter.string(from: date)
            return "0x" + hex(Data(text.utf8) + [0]) + "  \"\(text)\\000\""
        default: return "<NULL>"
        }
    }

    /// Bytes from outside (a secret, an attribute, a certificate's name, a path) as macOS's security tool
    /// prints them (`print_buffer`): `0x` and upper-case hex first when a byte is not printable ASCII, then,
    /// if any byte is, the ``quoted(_:)`` form. The one way the verbs print an outside string: nothing
    /// printed can move the terminal's cursor, colour it or start a line of its own.
    static func buffer(_ bytes: some Collection<UInt8>) -> String {
        guard !bytes.isEmpty else { return "\"\"" }
        let hasPlain = bytes.contains(where: isPlain), hasOther = bytes.contains { !isPlain($0) }
        let hexPart = hasOther ? "0x" + hex(Data(bytes)) + (hasPlain ? "  " : " ") : ""
        return hexPart + (hasPlain ? quoted(bytes) : "")
    }

    /// In quotes, with ``escaped(_:)``.
    static func quoted(_ bytes: some Collection<UInt8>) -> String { "\"" + escaped(bytes) + "\"" }

    /// Printable ASCII as it is; every other byte, `\` and `"` as a three-digit octal escape (`\033`).
    /// macOS leaves `"` as it is; escaping it keeps the quoted text's end unambiguous.
    static func escaped(_ bytes: some Collection<UInt8>) -> String {
        bytes.map { isPlain($0) && $0 != UInt8(ascii: "\"") ? String(UnicodeScalar($0)) : String(format: "\\%03o", $0) }
            .joined()
    }

    /// What macOS prints as itself: printable ASCII but the backslash.
    private static func isPlain(_ byte: UInt8) -> Bool { byte >= 0x20 && byte <= 0x7E && byte != UInt8(ascii: "\\") }

    /// Upper-case hex, as `security` prints blobs and hashes.
    static func hex(_ data: Data) -> String { data.map { String(format: "%02X", $0) }.joined() }

    /// The secret as `-w` prints it: text if it is printable UTF-8, hex otherwise.
    static func password(_ data: Data) -> String {
        if let text = String(validating: data, as: UTF8.self),
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        {
            return text
        }
        return data.map { String(format: "%02x", $0) }.joined()
    }

    /// Prints `security: OPERATION: message` and exits with the status's low byte (44 for not found).
    static func fail(_ operation: String, _ error: KeychainError) -> ExitCode {
        let message =
            error.status == SecStatus.itemNotFound || error.status == SecStatus.duplicateItem
            ? SecStatus.message(of: error.status) : error.message
        FileHandle.standardError.write(Data("security: \(operation): \(message)\n".utf8))
        return ExitCode(Int32(UInt8(truncatingIfNeeded: error.status)))
    }

    /// A FourCharCode (`'aapl'`) as the number Apple stores for crtr and type.
    static func fourCharCode(_ text: String) throws -> KeychainValue {
        let bytes = Array(text.utf8)
        guard bytes.count == 4 else { throw ValidationError("'\(text)' is not a four-character code") }
        return .number(Int64(bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }))
    }
}

/// The keychain a verb acts on: its last argument (a vault directory), else the default vault.
struct KeychainArgument: ParsableArguments {
    @Argument(
        help:
            "The vault to use (macOS: the keychain file); default $KEYCHAIN_VAULT or ~/.local/share/keychainfs/default."
    )
    var keychain: [String] = []

    /// The connection, or (docs/spec.md §5) `security: OPERATION: message` and the OSStatus exit code when the
    /// vault cannot be opened.
    func connect(for operation: String) throws -> KeychainConnection {
        let vault = keychain.first.map { Vault(directory: $0) } ?? ClientEnvironment.defaultVault()
        do {
            return try KeychainConnection(
                vault: vault, caller: ClientEnvironment.caller(), createIfMissing: keychain.isEmpty)
        } catch {
            throw SecurityOutput.fail(operation, error)
        }
    }
}
