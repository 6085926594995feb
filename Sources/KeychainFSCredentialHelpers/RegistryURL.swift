import Foundation

/// A registry's server URL split as docker-credential-helpers' `registryurl.Parse` (Go's net/url) and
/// osxkeychain's `splitServer` split it: scheme, host name, port and path.
package struct RegistryURL: Sendable, Equatable {
    /// `http`, `https`, or nil when the URL had no scheme (osxkeychain then stores HTTPS).
    package var scheme: String?
    /// The host name without brackets or port.
    package var host: String
    /// The port, when the URL names one.
    package var port: Int?
    /// The unescaped path; empty when there is none.
    package var path: String

    /// A URL split into its parts.
    package init(scheme: String?, host: String, port: Int?, path: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
    }

    /// Parses `serverURL`; a URL without `://` is read as `//serverURL` (so a bare host is a host, not a
    /// path). The query and the fragment are dropped; the user information is ignored.
    package static func parse(_ serverURL: String) throws(RegistryURLError) -> RegistryURL {
        let text = serverURL.contains("://") || serverURL.hasPrefix("//") ? serverURL : "//" + serverURL
        func failure(_ reason: String) -> RegistryURLError { RegistryURLError("parse \"\(text)\": \(reason)") }
        if text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            throw failure("net/url: invalid control character in URL")
        }
        var rest = Substring(text.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
        var scheme: String?
        if let colon = rest.firstIndex(of: ":"), let first = rest.first, first.isASCII && first.isLetter,
            rest[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        {
            scheme = rest[..<colon].lowercased()
            rest = rest[rest.index(after: colon)...]
        } else if rest.first == ":" {
            throw failure("missing protocol scheme")
        }
        if let question = rest.firstIndex(of: "?") { rest = rest[..<question] }
        guard rest.hasPrefix("//") else { throw RegistryURLError("no hostname in URL") }
        rest = rest.dropFirst(2)
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        let rawPath = rest[authorityEnd...]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let (host, port) = try splitHost(authority, failure)
        if let scheme, scheme != "http" && scheme != "https" { throw RegistryURLError("unsupported scheme: \(scheme)") }
        guard !host.isEmpty else { throw RegistryURLError("no hostname in URL") }
        guard validEscapes(rawPath) else { throw failure("invalid URL escape in path") }
        guard let path = String(rawPath).removingPercentEncoding else {
            throw failure("the unescaped path is not UTF-8")
        }
        return RegistryURL(scheme: scheme, host: host, port: port, path: path)
    }

    private static func splitHost(_ authority: Substring, _ failure: (String) -> RegistryURLError)
        throws(RegistryURLError) -> (String, Int?)
    {
        var name = authority, portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw failure("missing ']' in host") }
            name = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw failure("invalid port \"\(after)\" after host") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            name = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        let allowed = Set("-._~!$&'()*+,;=:[]<>\"".utf8)
        if let bad = name.utf8.first(where: { $0 < 0x80 && !isAlphanumeric($0) && !allowed.contains($0) }) {
            throw failure("invalid character \"\(Character(UnicodeScalar(bad)))\" in host name")
        }
        guard let portText, !portText.isEmpty else { return (String(name), nil) }
        guard portText.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw failure("invalid port \":\(portText)\" after host")
        }
        guard let port = Int(portText), port <= 65535 else { throw RegistryURLError("invalid port \(portText)") }
        return (String(name), port)
    }

    /// Every `%` starts two hex digits.
    private static func validEscapes(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "%") else { i += 1; continue }
            guard i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) else { return false }
            i += 3
        }
        return true
    }

    private static func isHex(_ byte: UInt8) -> Bool { (48...57).contains(byte) || (97...102).contains(byte | 0x20) }
    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (97...122).contains(byte | 0x20)
    }

    /// The URL `list` shows for an item, as Go's `url.URL{Scheme, Host, Path}.String()` writes it.
    package static func listed(https: Bool, host: String, port: Int, path: String) -> String {
        var authority = host
        if port != 0 { authority = (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }
        var escapedPath = escape(path, keeping: "-_.~$&+,/:;=@")
        if !escapedPath.isEmpty, !escapedPath.hasPrefix("/") { escapedPath = "/" + escapedPath }
        return (https ? "https" : "http") + "://" + escape(authority, keeping: "-_.~!$&'()*+,;=:[]<>\"") + escapedPath
    }

    private static func escape(_ text: String, keeping kept: String) -> String {
        let keep = Set(kept.utf8)
        return text.utf8.map { byte in
            isAlphanumeric(byte) || keep.contains(byte) ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }.joined()
    }
}

/// A server URL the Docker helper protocol cannot use; the message is what Docker prints.
package struct RegistryURLError: Error, CustomStringConvertible {
    /// The message, which quotes no secret.
    package let description: String
    /// An error with this message.
    package init(_ description: String) { self.description = description }
}
