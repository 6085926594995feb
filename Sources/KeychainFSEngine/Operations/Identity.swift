import KeychainFSModel
import KeychainFSStore
import Foundation

/// kSecClassIdentity (docs/reference/keychain-semantics.md §8): the join of a certificate and the private key whose application
/// label equals the certificate's public key hash. It has no table: each call runs on the two halves.
extension Keychain {
    /// One identity: its two halves' attributes and persistent references.
    struct IdentityMatch {
        var certificate: [String: KeychainValue]
        var certificateRef: Data
        var key: [String: KeychainValue]
        var keyRef: Data

        /// The key's attributes merged with the certificate's (the certificate's win).
        var attributes: [String: KeychainValue] { key.merging(certificate) { $1 } }
        /// `idnt` + the certificate's UUID, as Apple makes identity references.
        var persistentRef: Data { Data(Schema.identity.code.utf8) + certificateRef.dropFirst(4) }
    }

    /// Attributes an identity query matches on the certificate: its own, and labl/issr/slnr/skid/tkid.
    private static func isCertificateSide(_ code: String) -> Bool {
        [
            Attributes.label.code, Attributes.issuer.code, Attributes.serialNumber.code, Attributes.subjectKeyID.code,
            Attributes.tokenID.code,
        ].contains(code) || Schema.key.attribute(code) == nil
    }

    /// The identities matching `q`, in the certificates' insertion order, at most `limit`.
    func matchIdentities(_ q: ParsedQuery, limit: Int, caller: Caller) throws(KeychainError) -> [IdentityMatch] {
        var certificateQuery: KeychainDictionary = [
            QueryKey.class: .string(Schema.certificate.code), QueryKey.matchLimit: .string(QueryKey.matchLimitAll),
            QueryKey.returnAttributes: true, QueryKey.returnPersistentRef: true,
            Attributes.synchronizable.code: .string(QueryKey.synchronizableAny),
        ]
        var keyQuery: KeychainDictionary = [
            QueryKey.class: .string(Schema.key.code), QueryKey.matchLimit: .string(QueryKey.matchLimitAll),
            QueryKey.returnAttributes: true, QueryKey.returnPersistentRef: true, Attributes.keyClass.code: 1,
        ]
        if let ref = q.persistentRef, case .uuid(let uuid) = ref.target {
            certificateQuery[QueryKey.valuePersistentRef] = .data(Data(Schema.certificate.code.utf8) + uuid)
        }
        for (code, value) in q.filters {
            if Self.isCertificateSide(code) { certificateQuery[code] = value } else { keyQuery[code] = value }
        }
        if q.synchronizableSpecified, keyQuery[Attributes.synchronizable.code] == nil {
            keyQuery[Attributes.synchronizable.code] = .string(QueryKey.synchronizableAny)
        }
        var matches: [IdentityMatch] = []
        for certificate in try allResults(certificateQuery, caller: caller) {
            guard case .data(let hash)? = certificate.0[Attributes.publicKeyHash.code], !hash.isEmpty else { continue }
            keyQuery[Attributes.applicationLabel.code] = .data(hash)
            for key in try allResults(keyQuery, caller: caller) {
                matches.append(
                    IdentityMatch(certificate: certificate.0, certificateRef: certificate.1, key: key.0, keyRef: key.1))
                if matches.count >= limit { return matches }
            }
        }
        return matches
    }

    /// Attribute dictionaries and persistent references of every match (none is not an error here).
    private func allResults(_ query: KeychainDictionary, caller: Caller) throws(KeychainError) -> [(
        [String: KeychainValue], Data
    )] {
        do {
            return (try copyMatching(query, caller: caller)?.arrayValue ?? []).compactMap { result in
                guard var attributes = result.dictionaryValue,
                    let ref = attributes.removeValue(forKey: QueryKey.valuePersistentRef)?.dataValue
                else { return nil }
                return (attributes, ref)
            }
        } catch let error where error.status == SecStatus.itemNotFound {
            return []
        }
    }

    /// The persistent reference of an identity's private key, found by the join (not part of Apple's
    /// API: the filesystem shows an identity's two halves as files).
    public func identityKeyReference(_ identityRef: Data, caller: Caller) throws(KeychainError) -> Data {
        let q = try ParsedQuery.parse([
            QueryKey.class: .string(Schema.identity.code), QueryKey.valuePersistentRef: .data(identityRef),
        ])
        guard let match = try matchIdentities(q, limit: 1, caller: caller).first else { throw .notFound }
        return match.keyRef
    }

    func copyIdentities(_ q: ParsedQuery, limit: Int, builder: ResultBuilder, caller: Caller) throws(KeychainError)
        -> KeychainValue?
    {
        let matches = try matchIdentities(q, limit: limit, caller: caller)
        guard !matches.isEmpty else { throw .notFound }
        var results: [KeychainValue] = []
        for match in matches {
            func data(_ classCode: String, _ ref: Data) throws(KeychainError) -> Data? {
                // The call's kSecUse… keys go along: the key's access control (its password) is asked of them.
                let query: KeychainDictionary = q.useKeys.merging([
                    QueryKey.class: .string(classCode), QueryKey.valuePersistentRef: .data(ref),
                    QueryKey.returnData: true,
                ]) { $1 }
                return try copyMatching(query, caller: caller)?.dataValue
            }
            // The identity's data is its certificate's DER; its ref object is made of both halves.
            let reference: KeychainValue? =
                !q.returnsRef
                ? nil
                : .dictionary([
                    QueryKey.class: .string(Schema.identity.code),
                    QueryKey.valuePersistentRef: .data(match.persistentRef),
                    ResultBuilder.IdentityHalf.certificate: ResultBuilder.referenceDescription(
                        Schema.certificate.code, attributes: match.certificate,
                        persistentRef: match.certificateRef,
                        secret: try data(Schema.certificate.code, match.certificateRef)),
                    ResultBuilder.IdentityHalf.key: ResultBuilder.referenceDescription(
                        Schema.key.code, attributes: match.key, persistentRef: match.keyRef,
                        secret: try data(Schema.key.code, match.keyRef)),
                ])
            let value = try builder.value(
                attributes: match.attributes, persistentRef: match.persistentRef, reference: reference
            ) { () throws(KeychainError) in
                try data(Schema.certificate.code, match.certificateRef)
            }
            if let value { results.append(value) }
        }
        if limit == 1 { return results.first }
        return q.returns.isEmpty ? nil : .array(results)
    }

    /// Deletes each matching identity's certificate and, unless another certificate still refers to it, its key.
    func deleteIdentities(_ q: ParsedQuery, caller: Caller) throws(KeychainError) {
        let matches = try matchIdentities(q, limit: .max, caller: caller)
        guard !matches.isEmpty else { throw .notFound }
        for match in matches {
            try delete(
                [
                    QueryKey.class: .string(Schema.certificate.code),
                    QueryKey.valuePersistentRef: .data(match.certificateRef),
                ], caller: caller)
            let stillUsed = try matchIdentitiesUsing(match.key[Attributes.applicationLabel.code], caller: caller)
            if !stillUsed {
                do {
                    try delete(
                        [QueryKey.class: .string(Schema.key.code), QueryKey.valuePersistentRef: .data(match.keyRef)],
                        caller: caller)
                } catch let error where error.status == SecStatus.itemNotFound {}  // two identities shared it
            }
        }
    }

    private func matchIdentitiesUsing(_ label: KeychainValue?, caller: Caller) throws(KeychainError) -> Bool {
        guard let label else { return false }
        let query: KeychainDictionary = [
            QueryKey.class: .string(Schema.certificate.code), Attributes.publicKeyHash.code: label,
            Attributes.synchronizable.code: .string(QueryKey.synchronizableAny),
        ]
        do { _ = try copyMatching(query, caller: caller); return true } catch
            where error.status == SecStatus.itemNotFound
        { return false }
    }

    /// Applies the changes to each matching identity's certificate, then to its key, each getting the
    /// attributes its class has.
    func updateIdentities(_ q: ParsedQuery, _ changes: KeychainDictionary, caller: Caller) throws(KeychainError) {
        if !q.matchKeys.isEmpty {
            throw .param("kSecMatch… keys (kSecMatchLimit included) are not allowed in SecItemUpdate")
        }
        if changes[QueryKey.valueData] != nil {
            throw .param("update the identity's certificate or key item to change its data")
        }
        _ = try ParsedQuery.parseChanges(changes, schema: Schema.identity)
        let matches = try matchIdentities(q, limit: .max, caller: caller)
        guard !matches.isEmpty else { throw .notFound }
        for match in matches {
            for (schema, ref) in [(Schema.certificate, match.certificateRef), (Schema.key, match.keyRef)] {
                let own = changes.filter { schema.attribute($0.key) != nil }
                if !own.isEmpty {
                    try update(
                        [QueryKey.class: .string(schema.code), QueryKey.valuePersistentRef: .data(ref)], own,
                        caller: caller)
                }
            }
        }
    }
}
