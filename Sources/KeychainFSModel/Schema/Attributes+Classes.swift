import Foundation

/// Attributes of internet passwords, certificates and keys (docs/reference/keychain-semantics.md §2.4–§2.6).
extension Attributes {
    package static let pkValue: AttributeFlags = [.primaryKey, .materialized, .describesValue]

    // MARK: Internet passwords

    public static let securityDomain = AttributeDescriptor("sdmn", "kSecAttrSecurityDomain", .blob, pk, default: "")
    public static let server = AttributeDescriptor(
        "srvr", "kSecAttrServer", .blob, [.primaryKey, .materialized, .indexed], default: "")
    public static let `protocol` = AttributeDescriptor(
        "ptcl", "kSecAttrProtocol", .number, pk, default: 0,
        enumeration: Enumeration(
            prefix: "kSecAttrProtocol",
            [
                "FTP": "ftp ", "FTPAccount": "ftpa", "HTTP": "http", "IRC": "irc ", "NNTP": "nntp", "POP3": "pop3",
                "SMTP": "smtp",
                "SOCKS": "sox ", "IMAP": "imap", "LDAP": "ldap", "AppleTalk": "atlk", "AFP": "afp ", "Telnet": "teln",
                "SSH": "ssh ",
                "FTPS": "ftps", "HTTPS": "htps", "HTTPProxy": "htpx", "HTTPSProxy": "htsx", "FTPProxy": "ftpx",
                "SMB": "smb ",
                "RTSP": "rtsp", "RTSPProxy": "rtsx", "DAAP": "daap", "EPPC": "eppc", "IPP": "ipp ", "NNTPS": "ntps",
                "LDAPS": "ldps",
                "TelnetS": "tels", "IMAPS": "imps", "IRCS": "ircs", "POP3S": "pops",
            ]))
    public static let authenticationType = AttributeDescriptor(
        "atyp", "kSecAttrAuthenticationType", .blob, pk, default: "",
        enumeration: Enumeration(
            prefix: "kSecAttrAuthenticationType",
            [
                "NTLM": "ntlm", "MSN": "msna", "DPA": "dpaa", "RPA": "rpaa", "HTTPBasic": "http", "HTTPDigest": "httd",
                "HTMLForm": "form", "Default": "dflt",
            ]))
    public static let port = AttributeDescriptor("port", "kSecAttrPort", .number, pk, default: 0, range: .port)
    public static let path = AttributeDescriptor("path", "kSecAttrPath", .blob, pk, default: "")

    // MARK: Certificates

    public static let certificateType = AttributeDescriptor(
        "ctyp", "kSecAttrCertificateType", .number, pkValue, default: 0)
    public static let certificateEncoding = AttributeDescriptor("cenc", "kSecAttrCertificateEncoding", .number)
    public static let subject = AttributeDescriptor("subj", "kSecAttrSubject", .data)
    public static let issuer = AttributeDescriptor("issr", "kSecAttrIssuer", .data, pkValue, default: .data(Data()))
    public static let serialNumber = AttributeDescriptor(
        "slnr", "kSecAttrSerialNumber", .data, [.primaryKey, .materialized, .indexed], default: .data(Data()))
    public static let subjectKeyID = AttributeDescriptor("skid", "kSecAttrSubjectKeyID", .data)
    public static let publicKeyHash = AttributeDescriptor("pkhh", "kSecAttrPublicKeyHash", .data, [.indexed])

    // MARK: Keys

    public static let keyClass = AttributeDescriptor(
        "kcls", "kSecAttrKeyClass", .number, [.primaryKey, .materialized, .indexed], default: 0,
        enumeration: Enumeration(cases: [
            (KeychainValue.number(0), "kSecAttrKeyClassPublic", "public"),
            (.number(1), "kSecAttrKeyClassPrivate", "private"),
            (.number(2), "kSecAttrKeyClassSymmetric", "symmetric"),
        ]))
    public static let applicationLabel = AttributeDescriptor(
        "klbl", "kSecAttrApplicationLabel", .data, [.primaryKey, .materialized, .describesValue, .indexed],
        default: .data(Data()))
    public static let applicationTag = AttributeDescriptor(
        "atag", "kSecAttrApplicationTag", .blob, [.primaryKey, .materialized, .indexed], default: "")
    public static let keyCreator = AttributeDescriptor(
        "crtr", "kSecAttrCreator", .number, pk, default: 0, range: .fourCharCode)
    public static let keyType = AttributeDescriptor(
        "type", "kSecAttrKeyType", .number, pkValue, default: 0,
        enumeration: Enumeration(cases: [
            (.number(42), "kSecAttrKeyTypeRSA"), (.number(73), "kSecAttrKeyTypeECSECPrimeRandom"),
            (.number(2_147_483_678), "kSecAttrKeyTypeECSECPrimeRandomPKA"),
            (.number(2_147_483_679), "kSecAttrKeyTypeSecureEnclaveAttestation"),
            (.number(2_147_483_680), "kSecAttrKeyTypeSecureEnclaveAnonymousAttestation"),
            (.number(105), "kSecAttrKeyTypeEd25519"),
            (.number(106), "kSecAttrKeyTypeX25519"), (.number(107), "kSecAttrKeyTypeEd448"),
            (.number(108), "kSecAttrKeyTypeX448"),
            (.number(109), "kSecAttrKeyTypeKyber"), (.number(110), "kSecAttrKeyTypeMLKEM"),
            (.number(111), "kSecAttrKeyTypeMLDSA"),
        ]))
    public static let keySizeInBits = AttributeDescriptor("bsiz", "kSecAttrKeySizeInBits", .number, pkValue, default: 0)
    public static let effectiveKeySize = AttributeDescriptor(
        "esiz", "kSecAttrEffectiveKeySize", .number, pkValue, default: 0)
    public static let startDate = AttributeDescriptor(
        "sdat", "kSecAttrStartDate", .date, pk, default: .date(Date(timeIntervalSinceReferenceDate: 0)))
    public static let endDate = AttributeDescriptor(
        "edat", "kSecAttrEndDate", .date, pk, default: .date(Date(timeIntervalSinceReferenceDate: 0)))

    /// kSecAttrIsPermanent: a generated key is stored.
    public static let isPermanent = keyFlags[0]
    /// kSecAttrIsExtractable: 0 keeps a key's secret in the vault (it can still compute).
    public static let isExtractable = keyFlags[5]

    /// The boolean key usage attributes (numbers 0/1).
    package static let keyFlags: [AttributeDescriptor] = [
        ("perm", "kSecAttrIsPermanent"), ("priv", "kSecAttrIsPrivate"), ("modi", "kSecAttrIsModifiable"),
        ("sens", "kSecAttrIsSensitive"),
        ("asen", "kSecAttrWasAlwaysSensitive"), ("extr", "kSecAttrIsExtractable"),
        ("next", "kSecAttrWasNeverExtractable"),
        ("encr", "kSecAttrCanEncrypt"), ("decr", "kSecAttrCanDecrypt"), ("drve", "kSecAttrCanDerive"),
        ("sign", "kSecAttrCanSign"),
        ("vrfy", "kSecAttrCanVerify"), ("snrc", "kSecAttrCanSignRecover"), ("vyrc", "kSecAttrCanVerifyRecover"),
        ("wrap", "kSecAttrCanWrap"), ("unwp", "kSecAttrCanUnwrap"),
    ].map { AttributeDescriptor($0.0, $0.1, .number, range: .boolean) }
}
