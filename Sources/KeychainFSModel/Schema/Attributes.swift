/// The attribute descriptors, each written once and shared by the classes that have it
/// (docs/reference/keychain-semantics.md §1.2 for codes and names, §2 for kinds, flags and defaults).
public enum Attributes {
    package static let pk: AttributeFlags = [.primaryKey, .materialized]
    /// Primary-key attributes that nearly every item shares.
    package static let commonKey: AttributeFlags = [.primaryKey, .poorlySelective]

    // Common to every class (docs/reference/keychain-semantics.md §2.2).
    public static let creationDate = AttributeDescriptor(
        "cdat", "kSecAttrCreationDate", .date, [.systemManaged, .readOnlyInFilesystem])
    public static let modificationDate = AttributeDescriptor(
        "mdat", "kSecAttrModificationDate", .date, [.systemManaged, .readOnlyInFilesystem])
    public static let label = AttributeDescriptor("labl", "kSecAttrLabel", .blob, [.indexed])
    public static let accessGroup = AttributeDescriptor(
        "agrp", "kSecAttrAccessGroup", .string, commonKey.union(.materialized))
    public static let accessible = AttributeDescriptor(
        "pdmn", "kSecAttrAccessible", .accessibility, [.materialized],
        enumeration: Enumeration(cases: [
            ("ak", "kSecAttrAccessibleWhenUnlocked"), ("ck", "kSecAttrAccessibleAfterFirstUnlock"),
            ("dk", "kSecAttrAccessibleAlways"), ("aku", "kSecAttrAccessibleWhenUnlockedThisDeviceOnly"),
            ("cku", "kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly"),
            ("dku", "kSecAttrAccessibleAlwaysThisDeviceOnly"),
            ("akpu", "kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly"),
        ]))
    public static let synchronizable = AttributeDescriptor(
        "sync", "kSecAttrSynchronizable", .synchronizable, commonKey.union(.materialized), default: 0)
    public static let tombstone = AttributeDescriptor(
        "tomb", "kSecAttrTombstone", .number, [.materialized, .omittedFromAddResult], default: 0,
        range: .boolean)
    public static let syncViewHint = AttributeDescriptor(
        "vwht", "kSecAttrSyncViewHint", .string, commonKey, default: "")
    public static let tokenID = AttributeDescriptor("tkid", "kSecAttrTokenID", .string, commonKey, default: "")
    public static let multiUser = AttributeDescriptor(
        "musr", "kSecAttrMultiUser", .data,
        commonKey.union([.materialized, .systemManaged, .omittedFromAddResult, .ignoredInUpdate]),
        default: .data(.init()))
    public static let sharingGroup = AttributeDescriptor(
        "ggrp", "kSecAttrSharingGroup", .string, commonKey.union(.sharingGroup), default: "")
    /// kSecAttrAccessControl's flags (SecAccessControlCreateFlags bits); the Security module turns
    /// SecAccessControl objects into the protection class plus this number.
    public static let accessControl = AttributeDescriptor("accc", "kSecAttrAccessControl", .number, [.neverFilters])

    /// Attributes every class has.
    package static let common: [AttributeDescriptor] = [
        creationDate, modificationDate, label, accessGroup, accessible, synchronizable, tombstone,
        syncViewHint, tokenID, multiUser, sharingGroup, accessControl,
    ]

    // Password attributes (genp and inet, docs/reference/keychain-semantics.md §2.3–2.4).
    public static let description = AttributeDescriptor("desc", "kSecAttrDescription", .blob)
    public static let comment = AttributeDescriptor("icmt", "kSecAttrComment", .blob)
    public static let creator = AttributeDescriptor("crtr", "kSecAttrCreator", .number, range: .fourCharCode)
    public static let type = AttributeDescriptor("type", "kSecAttrType", .number, range: .fourCharCode)
    public static let scriptCode = AttributeDescriptor("scrp", "kSecAttrScriptCode", .number)
    public static let alias = AttributeDescriptor("alis", "kSecAttrAlias", .blob)
    public static let isInvisible = AttributeDescriptor("invi", "kSecAttrIsInvisible", .number, range: .boolean)
    public static let isNegative = AttributeDescriptor("nega", "kSecAttrIsNegative", .number, range: .boolean)
    public static let hasCustomIcon = AttributeDescriptor("cusi", "kSecAttrHasCustomIcon", .number, range: .boolean)
    public static let account = AttributeDescriptor(
        "acct", "kSecAttrAccount", .blob, [.primaryKey, .materialized, .indexed], default: "")

    /// Attributes shared by the password classes.
    package static let password: [AttributeDescriptor] = [
        description, comment, creator, type, scriptCode, alias, isInvisible, isNegative, hasCustomIcon, account,
    ]

    // Generic passwords.
    public static let service = AttributeDescriptor(
        "svce", "kSecAttrService", .blob, [.primaryKey, .materialized, .indexed], default: "")
    public static let generic = AttributeDescriptor("gena", "kSecAttrGeneric", .blob)
}
