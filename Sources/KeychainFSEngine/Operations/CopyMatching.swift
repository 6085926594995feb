import KeychainFSModel
import KeychainFSStore
import Foundation

extension Keychain {
    /// SecItemCopyMatching (docs/reference/keychain-semantics.md §4.2). Returns one object for a limit of 1 (the default), an array
    /// otherwise, nil when no `r_…` key asks for anything. Results come in insertion order.
    public func copyMatching(_ query: KeychainDictionary, caller: Caller) throws(KeychainError) -> KeychainValue? {
        try reporting(.copyMatching, query, caller) { () throws(KeychainError) in
            try copyingMatching(query, caller: caller)
        }
    }

    private func copyingMatching(_ query: KeychainDictionary, caller: Caller) throws(KeychainError) -> KeychainValue? {
        try Self.requireGroups(caller)
        let q = try ParsedQuery.parse(query)
        let schema = q.schema!
        if q.hasValueRef { throw .param("kSecValueRef is not supported for class '\(schema.code)'") }
        if q.useKeys[QueryKey.useItemList] != nil { throw .param("kSecUseItemList is not supported") }
        if q.persistentRef != nil, !q.filters.isEmpty {
            throw .param("a persistent reference and other attributes cannot be searched at the same time")
        }
        if !q.matchKeys.isDisjoint(with: [QueryKey.matchIssuers, QueryKey.matchPolicy])
            && ![Schema.certificate.code, Schema.identity.code].contains(schema.code)
            || q.matchKeys.contains(QueryKey.matchHostOrSubdomainOfHost) && schema.code != Schema.internetPassword.code
        {
            throw KeychainError(
                SecStatus.unimplemented, "this kSecMatch… filter is not supported for class '\(schema.code)'")
        }
        let limit = q.limit ?? 1
        let builder = ResultBuilder(query: q, schema: schema, forAdd: false)
        if schema.isVirtual { return try copyIdentities(q, limit: limit, builder: builder, caller: caller) }
        let filter = try filter(for: q, caller: caller)

        // Items with access control are authorized outside the keybag's lock (a prompt waits for a person),
        // then the call is made again with their answers: at most once per item the scan reaches.
        var answers: [Data: AuthorizationOutcome] = [:]
        let options = AuthenticationOptions(useKeys: q.useKeys, authenticationUI: q.authenticationUI)
        for _ in 0..<8 {
            let generation = self.generation
            let pass = try protection.withLock { keybag throws(KeychainError) -> Pass in
                try collect(
                    q, schema: schema, filter: filter, limit: limit, generation: generation, caller: caller,
                    keybag: keybag,
                    builder: builder, answers: answers, options: options)
            }
            switch pass {
            case .done(let value): return value
            case .needs(let entries):
                for entry in entries {
                    let outcome = authorize(
                        AuthorizationRequest(
                            item: entry.attributes, itemClass: schema.code, use: .readSecret, caller: caller,
                            options: options))
                    if case .denied(let failure) = outcome { throw failure.keychainError }
                    answers[entry.row.uuid] = outcome
                }
            }
        }
        throw KeychainError(SecStatus.interactionNotAllowed, "the items kept changing while they were being authorized")
    }

    private enum Pass { case done(KeychainValue?), needs([RowCache.Entry]) }

    private func collect(
        _ q: ParsedQuery, schema: ItemClassSchema, filter: ItemTable.Filter, limit: Int, generation: UInt64,
        caller: Caller,
        keybag: Keybag, builder: ResultBuilder, answers: [Data: AuthorizationOutcome],
        options: AuthenticationOptions
    ) throws(KeychainError) -> Pass {
        let entries = try matchingEntries(
            q, schema: schema, filter: filter, limit: limit, generation: generation, caller: caller, keybag: keybag)
        guard !entries.isEmpty else { throw .notFound }
        var results: [KeychainValue] = []
        var matched = 0
        var unanswered: [RowCache.Entry] = []
        for entry in entries {
            let row = entry.row, attributes = entry.attributes
            // Only the secret is guarded (Apple's two tiers): attribute-only results never ask.
            let returnsRefObject = q.returnsRef && Schema.classesWithRefObjects.contains(schema.code)
            // A Secure Enclave key's reference is no secret (its blob is of use only to this engine): its
            // use is authorized when it signs, as Apple asks at SecKeyCreateSignature, not at the lookup.
            let refNeedsAnswer = returnsRefObject && !SecureEnclaveBlob.isEnclaveKey(attributes)
            if q.returnsData || refNeedsAnswer, Self.needsAuthorization(attributes) {
                switch answers[row.uuid] {
                case .granted?: break
                case .skipped?: continue
                case .denied?, nil: unanswered.append(entry); continue
                }
            }
            matched += 1
            let persistentRef = persistentReference(row, schema)
            let reference =
                !returnsRefObject
                ? nil
                : ResultBuilder.referenceDescription(
                    schema.code, attributes: attributes, persistentRef: persistentRef,
                    secret: try revealSecret(
                        row, attributes: attributes, schema: schema, keybag: keybag, options: options))
            let value = try builder.value(attributes: attributes, persistentRef: persistentRef, reference: reference) {
                () throws(KeychainError) in
                try revealSecret(row, attributes: attributes, schema: schema, keybag: keybag, options: options)
            }
            if let value { results.append(value) }
        }
        if !unanswered.isEmpty { return .needs(unanswered) }
        guard matched > 0 else { throw .notFound }
        if limit == 1 { return .done(results.first) }
        return .done(q.returns.isEmpty ? nil : .array(results))
    }

    /// The rows a query reaches, opened: every row reached is opened, even for existence queries, so a
    /// class-A row while locked fails the call. A query by persistent reference alone (the filesystem's
    /// every open) is answered from the row cache when it can: no SQL, no metadata decryption; the
    /// class's availability is still checked here, and the secret still decrypted by the caller. So is a
    /// lookup this generation ran already (``MatchKey``), when its rows are still in the row cache.
    private func matchingEntries(
        _ q: ParsedQuery, schema: ItemClassSchema, filter: ItemTable.Filter, limit: Int, generation: UInt64,
        caller: Caller, keybag: Keybag
    ) throws(KeychainError) -> [RowCache.Entry] {
        if case .uuid(let uuid)? = q.persistentRef?.target, q.filters.isEmpty,
            let entry = try cachedEntry(uuid, generation: generation, caller: caller, keybag: keybag)
        {
            return [entry]
        }
        let key = MatchKey(schema, filter, limit: limit)
        if let key, let entries = try recentEntries(key, generation: generation, caller: caller, keybag: keybag) {
            return entries
        }
        let found = try store.read { db in try ItemTable.select(db, schema, filter, limit: limit) }
        // Lookups of an item are cached, not listings: those would only churn the caches.
        let keep = found.count <= 2
        let entries = try found.map { row throws(KeychainError) in
            try openedEntry(row, schema: schema, generation: generation, keybag: keybag, keep: keep)
        }
        if keep, let key { recentMatches.store(found.map(\.uuid), for: key, generation: generation) }
        return entries
    }
}
