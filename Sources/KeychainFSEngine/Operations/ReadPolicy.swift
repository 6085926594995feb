import KeychainFSModel
import KeychainFSStore
import Foundation
import KeychainFSSodium

/// The part of an item a reader asks for (the filesystem's files, docs/spec.md §4).
public enum ItemPart: Sendable {
    /// The item's secret (kSecValueData); for an identity, its certificate's DER.
    case data
    /// An identity's private key: the secret of the key item the identity joins.
    case identityKey
}

/// The one read policy (docs/spec.md §4, §10, §11): what a caller may read of an item, at this moment. The
/// filesystem, the Security module and the control socket ask here rather than deciding themselves.
extension Keychain {
    /// Whether an item keeps its secret in the vault: a key that is not extractable, or a token's private
    /// key (a Secure Enclave key: a sealed blob only the engine opens). Such secrets are never returned as
    /// bytes by ``read(_:of:caller:options:)`` (errSecDataNotAvailable), nor exported by the Security
    /// module; a key may still compute with them.
    public static func withholdsSecret(_ schema: ItemClassSchema, _ attributes: [String: KeychainValue]) -> Bool {
        schema.withholdsSecret(attributes)
    }

    /// The bytes of `part` of the item `persistentRef`, read now for `caller`: the item's class must be
    /// available (the lock is checked on every call), access control is evaluated with `options` (the
    /// filesystem passes an open file's token with UI Fail, so a read never prompts), secrets the schema
    /// withholds are errSecDataNotAvailable, and an identity's key is found by the identity join.
    public func read(_ part: ItemPart, of persistentRef: Data, caller: Caller, options: AuthenticationOptions? = nil)
        throws(KeychainError) -> Data
    {
        switch part {
        case .data:
            return try secret(persistentRef: persistentRef, caller: caller, options: options)
        case .identityKey:
            return try secret(
                persistentRef: try identityKeyReference(persistentRef, caller: caller), caller: caller, options: options
            )
        }
    }

    static let withheld = KeychainError(SecStatus.dataNotAvailable, "the item's secret is not extractable")

    /// ``read(_:of:caller:options:)`` and the version it read: the nonce of the item's sealed secret, drawn
    /// afresh at every write and stored beside the ciphertext, so it tells two versions apart without
    /// holding anything secret-derived (a reader that continues a version it began checks it is still the
    /// item's: docs/filesystem.md, "One version per read"). nil for an item without a secret.
    public func readVersioned(
        _ part: ItemPart, of persistentRef: Data, caller: Caller, options: AuthenticationOptions? = nil
    ) throws(KeychainError) -> (data: Data, version: Data?) {
        let reference = part == .data ? persistentRef : try identityKeyReference(persistentRef, caller: caller)
        let unprotected = try withUnprotectedEntry(reference, caller: caller) {
            entry, schema, keybag throws(KeychainError) in
            (try openSecret(entry.row, schema: schema, keybag: keybag) ?? Data(), Self.version(of: entry.row.secret))
        }
        if let unprotected { return unprotected }
        // A protected secret comes through the query (its access control); its version is read either side
        // of it, and the read is taken again if a write came between.
        for _ in 0..<3 {
            let before = try secretVersion(reference, caller: caller)
            let data = try secretByQuery(reference, caller: caller, options: options)
            if try secretVersion(reference, caller: caller) == before { return (data, before) }
        }
        throw KeychainError(SecStatus.notAvailable, "the item was rewritten during each of 3 reads")
    }

    /// The version of the secret of the item `persistentRef` (see ``readVersioned(_:of:caller:options:)``),
    /// under the caller's groups and the lock, access control aside: the nonce is not secret.
    private func secretVersion(_ persistentRef: Data, caller: Caller) throws(KeychainError) -> Data? {
        try withEntry(persistentRef, caller: caller, includingProtected: true) { entry, _, _ throws(KeychainError) in
            Self.version(of: entry.row.secret)
        } ?? nil
    }

    /// The nonce that begins a sealed secret (``AEAD``: nonce ‖ ciphertext ‖ tag).
    private static func version(of sealed: Data?) -> Data? { sealed.map { Data($0.prefix(24)) } }

    /// The secret of the item a persistent reference names: what `copyMatching([class, v_PersistentRef,
    /// r_Data])` returns, without building and parsing a query dictionary. This is every `open` of a
    /// `value`, so it answers from the row cache when it can; availability is checked on every call.
    func secret(persistentRef: Data, caller: Caller, options: AuthenticationOptions?) throws(KeychainError) -> Data {
        let unprotected = try withUnprotectedEntry(persistentRef, caller: caller) {
            entry, schema, keybag throws(KeychainError) in
            try openSecret(entry.row, schema: schema, keybag: keybag) ?? Data()
        }
        if let unprotected { return unprotected }
        return try secretByQuery(persistentRef, caller: caller, options: options)
    }

    /// The length of what ``read(_:of:caller:options:)`` returns, under the same policy (the lock, the
    /// caller's groups, withheld secrets, the identity join), without decrypting a secret when it can: an
    /// item without access control is measured by its sealed secret's length, which the opened attribute box
    /// authenticates (its binding holds that length). This is every `stat` of a file (measured: a new item's
    /// first LOOKUP decrypted its secret only to learn its size).
    public func length(_ part: ItemPart, of persistentRef: Data, caller: Caller) throws(KeychainError) -> Int {
        switch part {
        case .data: return try secretLength(of: persistentRef, caller: caller)
        case .identityKey:
            return try secretLength(of: try identityKeyReference(persistentRef, caller: caller), caller: caller)
        }
    }

    /// ``length(_:of:caller:)`` of an item's own secret.
    private func secretLength(of persistentRef: Data, caller: Caller) throws(KeychainError) -> Int {
        let unprotected = try withUnprotectedEntry(persistentRef, caller: caller) {
            entry, _, _ throws(KeychainError) -> Int in
            guard let sealed = entry.row.secret else { return 0 }
            guard let length = AEAD.plaintextLength(sealed) else {
                throw KeychainError(SecStatus.decode, "the secret of item \(entry.row.rowid) is truncated")
            }
            return length
        }
        if let unprotected { return unprotected }
        return try secret(persistentRef: persistentRef, caller: caller, options: nil).count
    }

    /// Runs `body` with the item a persistent reference names, when no access control guards it: from the
    /// row cache, or read by its UUID and kept there. nil when the reference is not of that kind, the
    /// item needs authorization, or the caller's groups do not hold it: then the query path decides.
    private func withUnprotectedEntry<Result>(
        _ persistentRef: Data, caller: Caller,
        _ body: (RowCache.Entry, ItemClassSchema, Keybag) throws(KeychainError) -> Result
    ) throws(KeychainError) -> Result? {
        try withEntry(persistentRef, caller: caller, includingProtected: false, body)
    }

    /// ``withUnprotectedEntry(_:caller:_:)``, and with `includingProtected` an item with access control too
    /// (for what reveals nothing of its secret).
    private func withEntry<Result>(
        _ persistentRef: Data, caller: Caller, includingProtected: Bool,
        _ body: (RowCache.Entry, ItemClassSchema, Keybag) throws(KeychainError) -> Result
    ) throws(KeychainError) -> Result? {
        try Self.requireGroups(caller)
        guard let reference = PersistentReference(persistentRef), case .uuid(let uuid) = reference.target,
            let schema = Schema.schema(for: reference.classCode), !schema.isVirtual
        else { return nil }
        let generation = self.generation
        return try protection.withLock { keybag throws(KeychainError) -> Result? in
            var found = try cachedEntry(uuid, generation: generation, caller: caller, keybag: keybag)
            if found == nil {
                found = try loadedEntry(uuid, schema: schema, generation: generation, caller: caller, keybag: keybag)
            }
            guard let entry = found, includingProtected || !Self.needsAuthorization(entry.attributes) else {
                return nil
            }
            if Self.withholdsSecret(schema, entry.attributes) { throw Self.withheld }
            return try body(entry, schema, keybag)
        }
    }

    private func secretByQuery(_ persistentRef: Data, caller: Caller, options: AuthenticationOptions?)
        throws(KeychainError) -> Data
    {
        let classCode = PersistentReference(persistentRef)?.classCode ?? Schema.genericPassword.code
        let query: KeychainDictionary = [
            QueryKey.class: .string(classCode), QueryKey.valuePersistentRef: .data(persistentRef),
            QueryKey.returnData: true, QueryKey.returnAttributes: true,
        ].merging(options?.queryKeys ?? [:]) { $1 }
        let result = try copyMatching(query, caller: caller)?.dictionaryValue ?? [:]
        if let schema = Schema.schema(for: classCode), Self.withholdsSecret(schema, result) { throw Self.withheld }
        return result[QueryKey.valueData]?.dataValue ?? Data()
    }
}
