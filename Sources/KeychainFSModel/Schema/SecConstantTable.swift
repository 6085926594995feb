/// Every public `kSec…` constant's raw value, found by name. Attribute keys, class values and
/// enumeration values come from the schema table; this adds the keys and values that are not
/// attributes (docs/reference/keychain-semantics.md §1). The `Security` module declares the constants and takes their values here.
public enum SecConstantTable {
    package static let others: [String: String] = [
        "kSecClass": "class", "kSecAttrPersistentReference": "persistref",
        "kSecAttrPersistantReference": "persistref", "kSecAttrSynchronizableAny": "syna",
        "kSecAttrAccessGroupToken": "com.apple.token", "kSecAttrTokenIDSecureEnclave": "com.apple.setoken",
        "kSecAttrKeyTypeEC": "73", "kSecAttrPRF": "prf", "kSecAttrSalt": "salt", "kSecAttrRounds": "rounds",
        "kSecAttrPRFHmacAlgSHA1": "hsha1", "kSecAttrPRFHmacAlgSHA224": "hsha224", "kSecAttrPRFHmacAlgSHA256": "hsha256",
        "kSecAttrPRFHmacAlgSHA384": "hsha384", "kSecAttrPRFHmacAlgSHA512": "hsha512",
        "kSecMatchPolicy": "m_Policy", "kSecMatchItemList": "m_ItemList", "kSecMatchSearchList": "m_SearchList",
        "kSecMatchIssuers": "m_Issuers", "kSecMatchEmailAddressIfPresent": "m_EmailAddressIfPresent",
        "kSecMatchSubjectContains": "m_SubjectContains", "kSecMatchSubjectStartsWith": "m_SubjectStartsWith",
        "kSecMatchSubjectEndsWith": "m_SubjectEndsWith", "kSecMatchSubjectWholeString": "m_SubjectWholeString",
        "kSecMatchCaseInsensitive": "m_CaseInsensitive", "kSecMatchDiacriticInsensitive": "m_DiacriticInsensitive",
        "kSecMatchWidthInsensitive": "m_WidthInsensitive", "kSecMatchTrustedOnly": "m_TrustedOnly",
        "kSecMatchValidOnDate": "m_ValidOnDate", "kSecMatchHostOrSubdomainOfHost": "m_HostOrSubdomainOfHost",
        "kSecMatchLimit": QueryKey.matchLimit, "kSecMatchLimitOne": QueryKey.matchLimitOne,
        "kSecMatchLimitAll": QueryKey.matchLimitAll,
        "kSecReturnData": QueryKey.returnData, "kSecReturnAttributes": QueryKey.returnAttributes,
        "kSecReturnRef": QueryKey.returnRef,
        "kSecReturnPersistentRef": QueryKey.returnPersistentRef, "kSecValueData": QueryKey.valueData,
        "kSecValueRef": QueryKey.valueRef,
        "kSecValuePersistentRef": QueryKey.valuePersistentRef, "kSecUseItemList": QueryKey.useItemList,
        "kSecUseKeychain": QueryKey.useKeychain,
        "kSecUseOperationPrompt": QueryKey.useOperationPrompt,
        "kSecUseNoAuthenticationUI": QueryKey.useNoAuthenticationUI,
        "kSecUseAuthenticationUI": QueryKey.useAuthenticationUI,
        "kSecUseAuthenticationUIAllow": QueryKey.useAuthenticationUIAllow,
        "kSecUseAuthenticationUIFail": QueryKey.useAuthenticationUIFail,
        "kSecUseAuthenticationUISkip": QueryKey.useAuthenticationUISkip,
        "kSecUseAuthenticationContext": QueryKey.useAuthenticationContext,
        "kSecUseCredentialReference": QueryKey.useCredentialReference,
        "kSecUseDataProtectionKeychain": QueryKey.dataProtectionKeychain,
        "kSecUseUserIndependentKeychain": QueryKey.useUserIndependentKeychain,
        "kSecPrivateKeyAttrs": "private", "kSecPublicKeyAttrs": "public",
        // SecImportExport.h (Apple's SecImportExport.c values).
        "kSecImportExportPassphrase": "passphrase", "kSecImportItemLabel": "label", "kSecImportItemKeyID": "keyid",
        "kSecImportItemTrust": "trust", "kSecImportItemCertChain": "chain", "kSecImportItemIdentity": "identity",
    ]

    /// The raw value of the constant called `name` (numbers as their decimal strings, as Apple's
    /// kSecAttrKeyClass… and kSecAttrKeyType… strings are), or nil.
    public static func value(named name: String) -> String? {
        if let value = others[name] { return value }
        for schema in Schema.classes {
            if schema.name == name { return schema.code }
            for attribute in schema.attributes {
                if attribute.name == name { return attribute.code }
                if let raw = attribute.enumeration?.raw(named: name) {
                    switch raw {
                    case .string(let s): return s
                    case .number(let n): return String(n)
                    default: continue
                    }
                }
            }
        }
        return nil
    }
}
