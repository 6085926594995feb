import KeychainFSEngine
import KeychainFSModel

/// An internet-password item as macOS's credential helpers describe it to SecItem calls: the attributes
/// they set. An attribute left nil is not in the dictionary, so a query matches any value of it, exactly
/// as those helpers' queries do.
package struct InternetPasswordQuery: Sendable {
    /// kSecAttrServer.
    package var server: String?
    /// kSecAttrAccount.
    package var account: String?
    /// kSecAttrPath.
    package var path: String?
    /// kSecAttrPort.
    package var port: Int?
    /// A kSecAttrProtocol value (``InternetProtocol``).
    package var protocolCode: KeychainValue?
    /// A kSecAttrAuthenticationType value.
    package var authenticationType: KeychainValue?
    /// kSecAttrLabel.
    package var label: String?

    /// A description with the given attributes.
    package init(
        server: String? = nil, account: String? = nil, path: String? = nil, port: Int? = nil,
        protocolCode: KeychainValue? = nil, authenticationType: KeychainValue? = nil, label: String? = nil
    ) {
        self.server = server
        self.account = account
        self.path = path
        self.port = port
        self.protocolCode = protocolCode
        self.authenticationType = authenticationType
        self.label = label
    }

    /// `kSecClass: kSecClassInternetPassword` and every attribute that is set.
    package var dictionary: KeychainDictionary {
        var d: KeychainDictionary = [QueryKey.class: .string(Schema.internetPassword.code)]
        if let server { d[Attributes.server.code] = .string(server) }
        if let account { d[Attributes.account.code] = .string(account) }
        if let path { d[Attributes.path.code] = .string(path) }
        if let port { d[Attributes.port.code] = .number(Int64(port)) }
        if let protocolCode { d[Attributes.protocol.code] = protocolCode }
        if let authenticationType { d[Attributes.authenticationType.code] = authenticationType }
        if let label { d[Attributes.label.code] = .string(label) }
        return d
    }
}

/// The kSecAttrProtocol and kSecAttrAuthenticationType values the helpers use, from the schema's
/// one table of constants.
package enum InternetProtocol {
    /// The raw value of `kSecAttrProtocol<suffix>` (`HTTPS` → `htps`).
    package static func code(_ suffix: String) -> KeychainValue {
        Attributes.protocol.enumeration!.raw(named: "kSecAttrProtocol" + suffix)!
    }

    /// kSecAttrAuthenticationTypeDefault (`dflt`).
    package static let defaultAuthentication: KeychainValue = Attributes.authenticationType.enumeration!.raw(
        named: "kSecAttrAuthenticationTypeDefault")!
}
