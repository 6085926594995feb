import KeychainFSModel
import KeychainFSStore
import Crypto
import Foundation
import KeychainFSSodium

/// The simulated Secure Enclave (docs/spec.md §10): P-256 keys made and used only here, in the engine (the
/// daemon, or the client process when it opens the vault in-process), or in a vault whose device key the
/// TPM seals, inside the TPM (``EnclavePrivateKey``, docs/tpm.md). A key leaves only as its blob
/// (``SecureEnclaveBlob``).
extension Keychain {
    /// One Secure Enclave request (the control socket's `key.secure-enclave`): `operation` is
    /// `generate` (with `accessibility`, and `accessControl` flags for a bound key: returns a new blob),
    /// `sign` (`blob`, `digest`: the DER ECDSA signature) or `exchange` (`blob`, `peer` x9.63 public key: the
    /// ECDH shared secret). `sign` and `exchange` name the keychain item with `persistentRef` when an item
    /// key is stored: the item must still exist, belong to the caller's access groups and hold this blob,
    /// and its class must be available. A bound key's own access control is judged as an item's would be.
    public func secureEnclave(_ request: KeychainDictionary, caller: Caller) throws(KeychainError) -> KeychainValue {
        try Self.requireGroups(caller)
        switch request["operation"]?.stringValue {
        case "generate":
            let accessibility = try enclaveAccessibility(request)
            let flags = request["accessControl"]?.numberValue
            if let flags, flags & AccessConstraint.Bit.applicationPassword != 0 {
                throw .param("a Secure Enclave key outside the keychain cannot take an application password")
            }
            var (publicKey, payload) = try EnclavePrivateKey.make(
                compact: request["compact"] != .bool(false), tpm: deviceKeyTPM)
            defer { Sodium.wipe(&payload) }
            if let flags { return .data(try boundKey(publicKey, payload, accessibility, flags)) }
            let sealed = try withEnclaveKey(accessibility) { wrapKey in
                AEAD.seal(payload, key: wrapKey, associatedData: Self.enclaveBinding(publicKey, accessibility))
            }
            return .data(publicKey + sealed)
        case "sign":  // not a schema code
            guard let digest = request["digest"]?.dataValue, (1...64).contains(digest.count) else {
                throw .param("Secure Enclave signing takes a digest of 1 to 64 bytes")
            }
            return .data(try enclaveKey(request, caller: caller).signature(digest: digest))
        case "exchange":
            guard let peerBytes = request["peer"]?.dataValue,
                let peer = try? P256.KeyAgreement.PublicKey(x963Representation: peerBytes)
            else {
                throw .param("Secure Enclave key exchange takes a P-256 public key in x9.63 form")
            }
            return .data(try enclaveKey(request, caller: caller).sharedSecret(with: peer))
        case "tss2-key":
            // The key's TPM object as a TSS2 PRIVATE KEY file (docs/tpm.md): usable with this TPM only, judged
            // as a use (the lock, its item, its access control).
            guard case .tpm(let blob, _) = try enclaveKey(request, caller: caller),
                let pem = TSS2PrivateKey.pem(of: blob)
            else {
                throw .param("only a Secure Enclave key made in a TPM has a TSS2 PRIVATE KEY file")
            }
            return .data(Data(pem.utf8))
        default:
            throw .param("unknown Secure Enclave operation")
        }
    }

    /// The private key of the request's blob, after the lock, the item and its access control allow it.
    private func enclaveKey(_ request: KeychainDictionary, caller: Caller) throws(KeychainError)
        -> EnclavePrivateKey
    {
        guard let blob = request["blob"]?.dataValue, let publicKey = SecureEnclaveBlob.publicKey(of: blob) else {
            throw .param("not a Secure Enclave key blob")
        }
        if let bound = BoundEnclaveKey(blob) { return try boundKey(bound, request, caller: caller) }
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
        return try unseal(
            Data(blob.dropFirst(SecureEnclaveBlob.publicKeySize)), accessibility,
            binding: Self.enclaveBinding(publicKey, accessibility))
    }

    /// A new bound key's blob (CryptoKit's `SecureEnclave`): its access control sealed in with it.
    private func boundKey(_ publicKey: Data, _ payload: Data, _ accessibility: Accessibility, _ flags: Int64)
        throws(KeychainError) -> Data
    {
        var bound = BoundEnclaveKey(accessibility: accessibility, flags: flags, created: now(), publicKey: publicKey)
        let binding = Self.boundBinding + bound.header
        bound.sealed = try withEnclaveKey(accessibility) { wrapKey in
            AEAD.seal(payload, key: wrapKey, associatedData: binding)
        }
        return bound.blob
    }

    /// A bound key's private key once its class is available and its own access control allows the use:
    /// opened before the prompt (a key of another vault fails without one) and again after it (the device
    /// may have locked while it waited).
    private func boundKey(_ bound: BoundEnclaveKey, _ request: KeychainDictionary, caller: Caller)
        throws(KeychainError) -> EnclavePrivateKey
    {
        guard request["persistentRef"] == nil else { throw .param("a bound Secure Enclave key is in no keychain item") }
        let binding = Self.boundBinding + bound.header
        _ = try unseal(bound.sealed, bound.accessibility, binding: binding)
        let testDevice = protection.withLock { $0.record.testDevice }
        if AccessConstraint(flags: bound.flags) != nil,
            !TestSwitches.isOff(Self.boundKeyAccessSwitch, testDevice: testDevice)
        {
            let options = AuthenticationOptions(
                useKeys: request, authenticationUI: request[QueryKey.useAuthenticationUI]?.stringValue)
            try authorizeKeyUse(bound.policyAttributes, caller: caller, options: options)
        }
        return try unseal(bound.sealed, bound.accessibility, binding: binding)
    }

    private func unseal(_ sealed: Data, _ accessibility: Accessibility, binding: Data) throws(KeychainError)
        -> EnclavePrivateKey
    {
        var payload = try withEnclaveKey(accessibility) { wrapKey throws(KeychainError) -> Data in
            do { return try AEAD.open(sealed, key: wrapKey, associatedData: binding) } catch {
                throw .param("the key was not made by this device's Secure Enclave")
            }
        }
        defer { Sodium.wipe(&payload) }
        return try EnclavePrivateKey(payload: payload, tpm: deviceKeyTPM)
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

    /// Switches off the judging of a bound key's access control, so that a test shows it is what refuses.
    public static let boundKeyAccessSwitch = "enclave-key-access"

    private static let boundBinding = Data("secure-enclave-bound-key|".utf8)

    private static func enclaveBinding(_ publicKey: Data, _ accessibility: Accessibility) -> Data {
        Data("secure-enclave-key|\(accessibility.rawValue)|".utf8) + publicKey
    }
}

/// A digest given as bytes, for swift-crypto's ECDSA (which signs the bytes it is handed).
struct EnclaveDigest: Digest {
    static var byteCount: Int { 0 }
    let bytes: [UInt8]
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
    func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
    var description: String { "EnclaveDigest(\(bytes.count) bytes)" }
}
