/// Raw values of the non-attribute dictionary keys and special values (docs/reference/keychain-semantics.md §1.4).
/// Attribute keys live in the schema table (``Attributes``); this is the rest.
public enum QueryKey {
    public static let `class` = "class"
    public static let matchLimit = "m_Limit"
    public static let matchLimitOne = "m_LimitOne"
    public static let matchLimitAll = "m_LimitAll"
    public static let matchIssuers = "m_Issuers"
    public static let matchPolicy = "m_Policy"
    public static let matchHostOrSubdomainOfHost = "m_HostOrSubdomainOfHost"
    public static let matchItemList = "m_ItemList"
    public static let returnData = "r_Data"
    public static let returnAttributes = "r_Attributes"
    public static let returnRef = "r_Ref"
    public static let returnPersistentRef = "r_PersistentRef"
    public static let valueData = "v_Data"
    public static let valueRef = "v_Ref"
    public static let valuePersistentRef = "v_PersistentRef"
    public static let synchronizableAny = "syna"
    public static let useItemList = "u_ItemList"
    public static let useAuthenticationUI = "u_AuthUI"
    public static let useAuthenticationUISkip = "u_AuthUIS"
    public static let useAuthenticationUIAllow = "u_AuthUIA"
    public static let useAuthenticationUIFail = "u_AuthUIF"
    public static let useAuthenticationContext = "u_AuthCtx"
    public static let useCredentialReference = "u_CredRef"
    public static let useOperationPrompt = "u_OpPrompt"
    public static let useNoAuthenticationUI = "u_NoAuthUI"
    public static let useKeychain = "u_Keychain"
    public static let useTombstone = "u_Tomb"
    public static let useSystemKeychain = "u_SystemKeychain"
    public static let useSystemKeychainAlways = "u_SystemKeychainAlways"
    public static let useUserIndependentKeychain = "u_UserIndependentKeychain"
    /// `nleg`: kSecUseDataProtectionKeychain / kSecAttrNoLegacy, accepted and ignored.
    public static let dataProtectionKeychain = "nleg"
    /// Internal keys a client may never pass (docs/reference/keychain-semantics.md §2.2: `clip` → errSecParam).
    public static let forbidden: Set<String> = ["clip"]

    /// The `u_…` keys the engine accepts (docs/reference/keychain-semantics.md §1.4).
    public static let knownUseKeys: Set<String> = [
        useItemList, useTombstone, useCredentialReference, useOperationPrompt, useNoAuthenticationUI,
        useAuthenticationUI,
        useAuthenticationContext, useSystemKeychain, useSystemKeychainAlways, useUserIndependentKeychain,
    ]
    /// The `r_…` keys.
    public static let returnKeys: Set<String> = [returnData, returnAttributes, returnRef, returnPersistentRef]
}
