import Foundation
import KeychainFSEngine
import KeychainFSModel

/// What git tells a credential helper on standard input (git-credential(7)), read as git's
/// osxkeychain helper reads it: `key=value` lines up to a blank line or the end; unknown keys ignored.
package struct GitCredential: Sendable {
    /// kSecAttrProtocol for the protocols osxkeychain keeps; nil when no `protocol` line came.
    package var protocolCode: KeychainValue?
    /// A `protocol` line named a protocol osxkeychain does not keep: the helper then does nothing.
    package var unsupportedProtocol = false
    /// The server name (`host` without its port and IPv6 brackets).
    package var host: String?
    /// The port after the host's colon.
    package var port: Int?
    /// The repository path (sent with `credential.useHttpPath`).
    package var path: String?
    /// The account.
    package var username: String?
    /// The password (bytes, as given).
    package var password: Data?
    /// `password_expiry_utc` (git ≥ 2.41), kept with the password.
    package var passwordExpiryUTC: Data?
    /// `oauth_refresh_token` (git ≥ 2.41), kept with the password.
    package var oauthRefreshToken: Data?

    /// git's protocol names → the kSecAttrProtocol constants osxkeychain maps them to.
    static let protocols: [String: String] = [
        "imap": "IMAP", "imaps": "IMAPS", "ftp": "FTP", "ftps": "FTPS", "https": "HTTPS", "http": "HTTP",
        "smtp": "SMTP",
    ]

    /// A credential with nothing set.
    package init() {}

    /// Parses git's input. Errors never quote a value (a password line could be malformed).
    package static func parse(_ input: Data) throws(GitCredentialError) -> GitCredential {
        var credential = GitCredential()
        for (index, line) in input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")) else {
                throw GitCredentialError("bad input: line \(index + 1) has no '='")
            }
            let key = String(decoding: line[line.startIndex..<equals], as: UTF8.self)
            let value = Data(line[(equals + 1)...])
            try credential.set(key, value)
            if credential.unsupportedProtocol { break }
        }
        return credential
    }

    private mutating func set(_ key: String, _ value: Data) throws(GitCredentialError) {
        func text() throws(GitCredentialError) -> String {
            guard let text = String(validating: value, as: UTF8.self) else {
                throw GitCredentialError("bad input: '\(key)' is not UTF-8")
            }
            return text
        }
        switch key {
        case "protocol":
            if let name = Self.protocols[try text()] {
                protocolCode = InternetProtocol.code(name)
            } else {
                unsupportedProtocol = true
            }
        case "host": try setHost(try text())
        case "path": path = try text()  // not a schema code
        case "username": username = try text()
        case "password": password = value
        case "password_expiry_utc": passwordExpiryUTC = value
        case "oauth_refresh_token": oauthRefreshToken = value
        default: break  // git may learn new keys; a helper must ignore what it does not know
        }
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port`; the brackets are not part of the server name.
    private mutating func setHost(_ value: String) throws(GitCredentialError) {
        var name = Substring(value), portText: Substring?
        if value.hasPrefix("["), let close = value.firstIndex(of: "]") {
            name = value[value.index(after: value.startIndex)..<close]
            let rest = value[value.index(after: close)...]
            if rest.hasPrefix(":") {
                portText = rest.dropFirst()
            } else if !rest.isEmpty {
                throw GitCredentialError("bad input: host '\(value)'")
            }
        } else if let colon = value.firstIndex(of: ":") {
            name = value[..<colon]
            portText = value[value.index(after: colon)...]
        }
        if let portText {
            guard let number = Int(portText), (0...65535).contains(number) else {
                throw GitCredentialError("bad input: port '\(portText)' of host")
            }
            port = number
        }
        host = String(name)
    }

    /// The item's attributes as osxkeychain sets them: server, account, path, port, protocol and the
    /// default authentication type. A host without a port means the protocol's default port, port 0 (the
    /// attribute's default): osxkeychain leaves the port out of its queries then, so that example.com could
    /// be answered with example.com:8443's password; here the two never answer for each other.
    package var query: InternetPasswordQuery {
        InternetPasswordQuery(
            server: host, account: username, path: path, port: host == nil ? port : port ?? 0,
            protocolCode: protocolCode,
            authenticationType: InternetProtocol.defaultAuthentication)
    }

    /// The stored secret, as osxkeychain keeps it: the password, then the expiry and the refresh token
    /// as `\nkey=value` lines, so that `get` prints them back as lines of its own.
    package var secret: Data? {
        guard var data = password else { return nil }
        if let passwordExpiryUTC { data += Data("\npassword_expiry_utc=".utf8) + passwordExpiryUTC }
        if let oauthRefreshToken { data += Data("\noauth_refresh_token=".utf8) + oauthRefreshToken }
        return data
    }

    /// The password part of a stored secret (before the appended lines), which `erase` compares.
    package static func password(inSecret secret: Data) -> Data {
        Data(secret.prefix { $0 != UInt8(ascii: "\n") })
    }
}

/// Input git's helper protocol cannot accept.
package struct GitCredentialError: Error, CustomStringConvertible {
    /// The message, which quotes no secret.
    package let description: String
    /// An error with this message.
    package init(_ description: String) { self.description = description }
}
