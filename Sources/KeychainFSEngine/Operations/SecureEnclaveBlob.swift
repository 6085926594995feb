import Foundation
import KeychainFSModel

/// The two forms a simulated Secure Enclave key leaves the engine in (docs/keys.md, "Secure Enclave"):
/// - an *item key* (SecKeyCreateRandomKey): the public key (x9.63, 65 bytes) ‖ its private scalar sealed;
///   its access control is its keychain item's, checked when the item is read;
/// - a *bound key* (CryptoKit's `SecureEnclave`, `dataRepresentation`): a header naming its protection
///   class, access-control flags and creation date ‖ the public key ‖ the scalar sealed with the header
///   as associated data, so the access control travels with the key and cannot be stripped.
/// Either seal is under a key derived from the device key and the class key of its accessibility: useless
/// in another vault and while its class is locked.
public enum SecureEnclaveBlob {
    /// kSecAttrTokenID's value for Secure Enclave keys.
    public static let tokenID = "com.apple.setoken"
    /// The bytes of the public key at an item key's start.
    public static let publicKeySize = 65

    /// The public key (x9.63) of either form; nil for bytes that are neither.
    public static func publicKey(of blob: Data) -> Data? {
        if let bound = BoundEnclaveKey(blob) { return bound.publicKey }
        guard blob.count > publicKeySize, blob.first == 0x04 else { return nil }
        return Data(blob.prefix(publicKeySize))
    }

    /// Whether an item's attributes are a Secure Enclave key's.
    static func isEnclaveKey(_ attributes: [String: KeychainValue]) -> Bool {
        attributes[Attributes.tokenID.code] == .string(tokenID)
    }
}

/// A bound key's blob, parsed (nothing in it is trusted until its seal opens: the header is its associated data).
struct BoundEnclaveKey: Sendable {
    static let magic = Data("kcSE".utf8)
    static let version: UInt8 = 1

    var accessibility: Accessibility
    /// SecAccessControlCreateFlags bits.
    var flags: Int64
    var created: Date
    var publicKey: Data
    var sealed: Data

    init(accessibility: Accessibility, flags: Int64, created: Date, publicKey: Data, sealed: Data = Data()) {
        self.accessibility = accessibility
        self.flags = flags
        self.created = created
        self.publicKey = publicKey
        self.sealed = sealed
    }

    /// Parses `blob`; nil when it is not a bound key's (an item key's starts with 0x04).
    init?(_ blob: Data) {
        var rest = blob[...]
        guard rest.starts(with: Self.magic) else { return nil }
        rest = rest.dropFirst(Self.magic.count)
        guard rest.popFirst() == Self.version, let flags = rest.popInteger(), let created = rest.popInteger(),
            let length = rest.popFirst(), rest.count > Int(length) + SecureEnclaveBlob.publicKeySize,
            let raw = String(bytes: rest.prefix(Int(length)), encoding: .utf8),
            let accessibility = Accessibility(rawValue: raw)
        else { return nil }
        rest = rest.dropFirst(Int(length))
        let publicKey = rest.prefix(SecureEnclaveBlob.publicKeySize)
        guard publicKey.first == 0x04 else { return nil }
        self.init(
            accessibility: accessibility, flags: Int64(bitPattern: flags),
            created: Date(timeIntervalSince1970: Double(bitPattern: created)), publicKey: Data(publicKey),
            sealed: Data(rest.dropFirst(SecureEnclaveBlob.publicKeySize)))
    }

    /// Everything but the seal: the seal's associated data.
    var header: Data {
        var bytes = Self.magic
        bytes.append(Self.version)
        bytes.appendInteger(UInt64(bitPattern: flags))
        bytes.appendInteger(created.timeIntervalSince1970.bitPattern)
        let raw = Data(accessibility.rawValue.utf8)
        bytes.append(UInt8(raw.count))
        return bytes + raw + publicKey
    }

    var blob: Data { header + sealed }

    /// The attributes the read policy judges the key's use by, as it judges a key item's.
    var policyAttributes: [String: KeychainValue] {
        [
            Attributes.accessible.code: .string(accessibility.rawValue),
            Attributes.accessControl.code: .number(flags), Attributes.creationDate.code: .date(created),
            Attributes.label.code: "Secure Enclave key", Attributes.tokenID.code: .string(SecureEnclaveBlob.tokenID),
        ]
    }
}

extension Data {
    fileprivate mutating func appendInteger(_ value: UInt64) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    fileprivate mutating func popInteger() -> UInt64? {
        guard count >= 8 else { return nil }
        let value = prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        self = dropFirst(8)
        return value
    }
}
