import KeychainFSModel
import KeychainFSStore
import Crypto
import Foundation
import KeychainFSSodium

/// The simulated Secure Enclave (docs/spec.md §10): P-256 keys made and used only here, in the engine (the
/// daemon, or the client process when it opens the vault in-process). A key leaves only as its blob:
/// the public key (x9.63, 65 bytes) ‖ its private scalar sealed with a key derived from the device key
/// and the class key of its accessibility. So the blob is useless without this vault's device key
/// (a copied vault used with another `--device-key` cannot use it) and while its class is locked.
public enum SecureEnclaveBlob {
    /// kSecAttrTokenID's value for Secure Enclave keys.
    public static let tokenID = "com.apple.setoken"
    /// The bytes of the public key at the blob's start.
    public static let publicKeySize = 65

    /// The public key (x9.63) a blob starts with; nil for bytes that are no blob.
    public static func publicKey(of blob: Data) -> Data? {
        guard blob.count > publicKeySize, blob.first == 0x04 else { return nil }
        return Data(blob.prefix(publicKeySize))
    }

    /// Whether an item's attributes are a Secure Enclave key's.
    static func isEnclaveKey(_ attributes: [String: KeychainValue]) -> Bool {
        attributes[Attributes.tokenID.code] == .string(tokenID)
    }
}

extension Keychain {
    /// One Secure Enclave request (the control socket's `key.secure-enclave`): `operation` is
    /// `generate` (with `accessibility`: returns a new blob), `sign` (`blob`, `digest`: the DER ECDSA
    /// signature) or `exchange` (`blob`, `peer` x9.63 public key: the ECDH shared secret). `sign` and
    /// `exchange` name the keychain item with `persistentRef` when the key is stored: the item must still
    /// exist, belong to the caller's access groups and hold this blob, and its class must be available.
    public func secureEnclave(_ request: KeychainDictionary, caller: Caller) throws(KeychainError) -> KeychainValue {
        try Self.requireGroups(caller)
        switch request["operation"]?.stringValue {
        case "generate":
            let accessibility = try enclaveAccessibility(request)
            let key = P256.Signing.PrivateKey()
            let publicKey = key.publicKey.x963Representation
            let sealed = try withEnclaveKey(accessibility) { wrapKey in
                AEAD.seal(
                    key.rawRepresentation, key: wrapKey, associatedData: Self.enclaveBinding(publicKey, accessibility))
            }
            return .data(publicKey + sealed)
        case "sign":  // not a schema code
            guard let digest = request["digest"]?.dataValue, (1...64).contains(digest.count) else {
                throw .param("Secure Enclave signing takes a digest of 1 to 64 bytes")
            }
            let key = try enclaveKey(request, caller: caller)
            do { return .data(try key.signature(for: EnclaveDigest(bytes: [UInt8](digest))).derRepresentation) } catch {
                throw KeychainError(SecStatus.internalComponent, "Secure Enclave signing failed")
            }
        case "exchange":
            guard let peerBytes = request["peer"]?.dataValue,
                let peer = try? P256.KeyAgreement.PublicKey(x963Representation: peerBytes)
            else {
                throw .param("Secure Enclave key exchange takes a P-256 public key in x9.63 form")
            }
            let key = try enclaveKey(request, caller: caller)
            do {
                let agreement = try P256.KeyAgreement.PrivateKey(rawRepresentation: key.rawRepresentation)
                return .data(try agreement.sharedSecretFromKeyAgreement(with: peer).withUnsafeBytes { Data($0) })
            } catch {
                throw KeychainError(SecStatus.internalComponent, "Secure Enclave key exchange failed")
            }
        default:
            throw .param("unknown Secure Enclave operation")
        }
    }

    /// The private key of the request's blob, after the lock, the item and its access control allow it.
    private func enclaveKey(_ request: KeychainDictionary, caller: Caller) throws(KeychainError)
        -> P256.Signing.PrivateKey
    {
        guard let blob = request["blob"]?.dataValue, let publicKey = SecureEnclaveBlob.publicKey(of: blob) else {
            throw .param("not a Secure Enclave key blob")
        }
        var accessibility = try enclaveAccessibility(request)
        if let reference = request["persistentRef"]?.dataValue {
            // Reading the key item's data is where its access control is enforced (docs/spec.md §11: the lock,
            // `.privateKeyUsage` with a constraint prompts like any protected read; UI Fail/Skip as asked).
            var query: KeychainDictionary = [
                QueryKey.class: .string(Schema.key.code), QueryKey.valuePersistentRef: .data(reference),
                QueryKey.returnData: true, QueryKey.returnAttributes: true,
            ]
            if let ui = request[QueryKey.useAuthenticationUI] { query[QueryKey.useAuthenticationUI] = ui }
            if let context = request[QueryKey.useAuthenticationContext] {
                query[QueryKey.useAuthenticationContext] = context
            }  // the key's LAContext
            guard case .dictionary(let item)? = try copyMatching(query, caller: caller),
                item[QueryKey.valueData]?.dataValue == blob,
                SecureEnclaveBlob.isEnclaveKey(item),
                let stored = item[Attributes.accessible.code]?.stringValue.flatMap(Accessibility.init)
            else {
                throw KeychainError(SecStatus.itemNotFound, "the Secure Enclave key is not in the keychain")
            }
            accessibility = stored
        }
        let scalar = try withEnclaveKey(accessibility) { wrapKey throws(KeychainError) -> Data in
            let sealed = blob.dropFirst(SecureEnclaveBlob.publicKeySize)
            do {
                return try AEAD.open(
                    Data(sealed), key: wrapKey, associatedData: Self.enclaveBinding(publicKey, accessibility))
            } catch {
                throw .param("the key was not made by this device's Secure Enclave")
            }
        }
        do { return try P256.Signing.PrivateKey(rawRepresentation: scalar) } catch {
            throw .param("the Secure Enclave key is damaged")
        }
    }

    private func enclaveAccessibility(_ request: KeychainDictionary) throws(KeychainError) -> Accessibility {
        guard let raw = request["accessibility"]?.stringValue else { return Schema.key.defaultAccessibility }
        guard let accessibility = Accessibility(rawValue: raw) else { throw .param("unknown accessibility '\(raw)'") }
        return accessibility
    }

    /// Runs `body` with the wrapping key of `accessibility`: errSecInteractionNotAllowed while its class
    /// is unavailable (the device is locked).
    private func withEnclaveKey<R>(_ accessibility: Accessibility, _ body: (GuardedKey) throws(KeychainError) -> R)
        throws(KeychainError) -> R
    {
        try protection.withLock { keybag throws(KeychainError) -> R in
            let keys = try keybag.keys(for: accessibility)
            let wrapKey = KeyDerivation.subkey(
                of: deviceKey, context: "keychainfs secure enclave wrap v1", input: keys.classKey)
            defer { wrapKey.wipe() }
            return try body(wrapKey)
        }
    }

    private static func enclaveBinding(_ publicKey: Data, _ accessibility: Accessibility) -> Data {
        Data("secure-enclave-key|\(accessibility.rawValue)|".utf8) + publicKey
    }
}

/// A digest given as bytes, for swift-crypto's ECDSA (which signs the bytes it is handed).
private struct EnclaveDigest: Digest {
    static var byteCount: Int { 0 }
    let bytes: [UInt8]
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
    func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
    var description: String { "EnclaveDigest(\(bytes.count) bytes)" }
}
