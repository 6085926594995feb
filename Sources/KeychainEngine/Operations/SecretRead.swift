import Foundation

extension Keychain {
    /// The secret of the item a persistent reference names: what
    /// `copyMatching([class, v_PersistentRef, r_Data])` returns, without building and parsing a query
    /// dictionary. This is the filesystem's every `open` of a `value`, so it answers from the row cache
    /// when it can; the class's availability (the lock) is checked on every call all the same.
    /// `options`: how authentication may happen for an item with access control (the filesystem passes
    /// an open file's token with UI Fail, so a read never prompts).
    public func secret(persistentRef: Data, caller: Caller, options: AuthenticationOptions? = nil) throws(KeychainError) -> Data {
        try Self.requireGroups(caller)
        guard let reference = PersistentReference(persistentRef), case .uuid(let uuid) = reference.target,
              let schema = Schema.schema(for: reference.classCode), !schema.isVirtual else {
            return try secretByQuery(persistentRef, caller: caller, options: options)
        }
        let generation = self.generation
        let cached = try protection.withLock { keybag throws(KeychainError) -> Data? in
            guard let entry = try cachedEntry(uuid, generation: generation, caller: caller, keybag: keybag),
                  !Self.needsAuthorization(entry.attributes) else { return nil }  // protected: through the policy
            return try openSecret(entry.row, schema: schema, keybag: keybag) ?? Data()
        }
        if let cached { return cached }
        return try secretByQuery(persistentRef, caller: caller, options: options)
    }

    private func secretByQuery(_ persistentRef: Data, caller: Caller, options: AuthenticationOptions?) throws(KeychainError) -> Data {
        let classCode = PersistentReference(persistentRef)?.classCode ?? Schema.genericPassword.code
        var query: KeychainDictionary = [SecKey.class: .string(classCode), SecKey.valuePersistentRef: .data(persistentRef), SecKey.returnData: true]
        if let options {
            if options.ui == .fail { query[SecKey.useAuthenticationUI] = "u_AuthUIF" }
            if let token = options.contextToken { query["u_AuthCtx"] = .dictionary([AuthenticationOptions.ContextKey.token: .data(token)]) }
        }
        return try copyMatching(query, caller: caller)?.dataValue ?? Data()
    }
}
