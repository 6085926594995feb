import Foundation

/// A SecItem dictionary after key dispatch and value coercion (docs/reference/keychain-semantics.md §3.1–3.2).
/// Each operation then checks which groups of keys it allows.
package struct ParsedQuery {
    package var schema: ItemClassSchema?
    /// Attribute filters (queries) or values (add), coerced to their kinds.
    package private(set) var attributes: [String: KeychainValue] = [:]

    /// The attributes a query filters on (kSecAttrAccessControl never does): worked out once, at the end
    /// of ``parse(_:)`` (a search asks for them three times).
    package private(set) var filters: [String: KeychainValue] = [:]
    /// An attribute that never filters was given: ``filters`` is ``attributes`` without it.
    private var hasNeverFilters = false

    /// What the caller said about authentication UI: kSecUseAuthenticationUI, or kSecUseNoAuthenticationUI.
    package var authenticationUI: String? {
        if useKeys[QueryKey.useNoAuthenticationUI] == .bool(true) { return QueryKey.useAuthenticationUIFail }
        return useKeys[QueryKey.useAuthenticationUI]?.stringValue
    }
    /// kSecAttrSynchronizable was given (any value, including SynchronizableAny): no implicit sync = 0 filter.
    package var synchronizableSpecified = false
    /// kSecMatchLimit: nil when absent, `Int.max` for kSecMatchLimitAll.
    package var limit: Int?
    /// Every `m_…` key present but kSecMatchItemList.
    package var matchKeys: Set<String> = []
    /// kSecMatchItemList: results must be among these items. It is macOS's (the file keychain's; iOS's
    /// server has no such key) and kept here in SecItemCopyMatching, Update and Delete, as code written
    /// for a Mac (git's osxkeychain helper deletes by it) expects; not in SecItemAdd (errSecParam).
    package var itemList: [PersistentReference]?
    /// The `r_…` keys whose value is true.
    package var returns: Set<String> = []
    /// Any `r_…` key present, true or false.
    package var hasReturnKeys = false
    package var valueData: Data?
    package var persistentRef: PersistentReference?
    package var hasValueRef = false
    package var useKeys: [String: KeychainValue] = [:]

    package var returnsData: Bool { returns.contains(QueryKey.returnData) }
    package var returnsAttributes: Bool { returns.contains(QueryKey.returnAttributes) }
    package var returnsRef: Bool { returns.contains(QueryKey.returnRef) }
    package var returnsPersistentRef: Bool { returns.contains(QueryKey.returnPersistentRef) }

    /// Parses a query or add dictionary. `classOptional` allows omitting kSecClass when a persistent
    /// reference names the class.
    package static func parse(_ dict: KeychainDictionary) throws(KeychainError) -> ParsedQuery {
        var q = ParsedQuery()
        if let cls = dict[QueryKey.class] {
            guard let code = cls.stringValue else { throw .param("kSecClass must be a string") }
            guard let schema = Schema.schema(for: code) else {
                throw KeychainError(SecStatus.noSuchClass, "'\(code)' is not a keychain item class served here")
            }
            q.schema = schema
        }
        // Persistent refs can name the class; parse them before attributes need a schema.
        if let ref = dict[QueryKey.valuePersistentRef] {
            guard let data = ref.dataValue, let parsed = PersistentReference(data) else {
                throw .param("kSecValuePersistentRef is not a valid persistent reference")
            }
            q.persistentRef = parsed
            if q.schema == nil { q.schema = Schema.schema(for: parsed.classCode) }
            guard q.schema?.code == parsed.classCode else {
                throw .param("kSecValuePersistentRef names another class than kSecClass")
            }
        }
        guard let schema = q.schema else { throw .param("kSecClass is missing") }

        for (key, value) in dict where key != QueryKey.class && key != QueryKey.valuePersistentRef {
            if QueryKey.forbidden.contains(key) { throw .param("'\(key)' is an internal attribute") }
            if key.utf8.count == 4 {
                try q.addAttribute(key, value, schema: schema)
                continue
            }
            switch key.first {
            case "m": try q.addMatchKey(key, value)
            case "r":
                guard QueryKey.returnKeys.contains(key) else { throw .param("unknown return key '\(key)'") }
                guard case .bool(let wanted) = value else {
                    throw .param("'\(key)' must be a boolean (kCFBooleanTrue/False)")
                }
                q.hasReturnKeys = true
                if wanted { q.returns.insert(key) }
            case "u":
                guard QueryKey.knownUseKeys.contains(key) else { throw .param("unknown use key '\(key)'") }
                q.useKeys[key] = value
            case "v":
                switch key {
                case QueryKey.valueData:
                    guard let data = value.dataValue else { throw .param("kSecValueData must be data") }
                    q.valueData = data
                case QueryKey.valueRef: q.hasValueRef = true
                default: throw .param("unknown value key '\(key)'")
                }
            case "f": continue  // internal callbacks: ignored, as Apple does
            default: throw .param("'\(key)' is not a keychain dictionary key")
            }
        }
        if q.itemList != nil, schema.isVirtual {
            throw KeychainError(SecStatus.unimplemented, "kSecMatchItemList is not supported for identities")
        }
        q.filters =
            q.hasNeverFilters
            ? q.attributes.filter { schema.attribute($0.key)?.flags.contains(.neverFilters) != true } : q.attributes
        return q
    }

    private mutating func addAttribute(_ code: String, _ value: KeychainValue, schema: ItemClassSchema)
        throws(KeychainError)
    {
        if code == QueryKey.dataProtectionKeychain { return }
        guard let attribute = schema.attribute(code) else { throw .noSuchAttr(code, in: schema.code) }
        if attribute.kind == .synchronizable {
            synchronizableSpecified = true
            if value == .string(QueryKey.synchronizableAny) { return }
        }
        if attribute.flags.contains(.neverFilters) { hasNeverFilters = true }
        attributes[code] = try ValueCoercion.coerce(value, to: attribute)
    }

    private mutating func addMatchKey(_ key: String, _ value: KeychainValue) throws(KeychainError) {
        if key == QueryKey.matchItemList {
            // Apple also takes item objects; the Security module turns those into their persistent references.
            guard case .array(let items) = value else { throw .param("kSecMatchItemList must be an array") }
            itemList = try items.map { item throws(KeychainError) in
                guard let data = item.dataValue, let ref = PersistentReference(data) else {
                    throw .param("kSecMatchItemList holds persistent references (or keychain objects) only")
                }
                return ref
            }
            return
        }
        matchKeys.insert(key)
        guard key == QueryKey.matchLimit else { return }
        switch value {
        case .string(QueryKey.matchLimitOne): limit = 1
        case .string(QueryKey.matchLimitAll): limit = .max
        case .number(let n) where n > 0: limit = Int(n)
        default: throw .param("kSecMatchLimit must be kSecMatchLimitOne, kSecMatchLimitAll or a positive number")
        }
    }

    /// Parses SecItemUpdate's attributesToUpdate (docs/reference/keychain-semantics.md §4.3): every key but `v_Data` is an attribute
    /// lookup, so `class`, `r_…`, `m_…` and unknown keys are errSecNoSuchAttr.
    package static func parseChanges(_ dict: KeychainDictionary, schema: ItemClassSchema) throws(KeychainError) -> (
        attributes: [String: KeychainValue], data: Data?
    ) {
        var attributes: [String: KeychainValue] = [:]
        var data: Data?
        for (key, value) in dict {
            if QueryKey.forbidden.contains(key) { throw .param("'\(key)' is an internal attribute") }
            if key == QueryKey.valueData {
                guard let d = value.dataValue else { throw .param("kSecValueData must be data") }
                data = d
                continue
            }
            if key == QueryKey.dataProtectionKeychain { continue }
            guard let attribute = schema.attribute(key) else { throw .noSuchAttr(key, in: schema.code) }
            if attribute.flags.contains(.ignoredInUpdate) { continue }
            if attribute.flags.contains(.sharingGroup) { throw .param("kSecAttrSharingGroup cannot be updated") }
            if attribute.kind == .synchronizable, value == .string(QueryKey.synchronizableAny) { continue }
            attributes[key] = try ValueCoercion.coerce(value, to: attribute)
        }
        return (attributes, data)
    }
}
