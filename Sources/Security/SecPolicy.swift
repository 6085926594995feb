import Foundation

/// A trust policy (Apple's `SecPolicy`): what SecTrust checks beyond the chain itself
/// (docs/swift-api.md, "Certificate trust").
public final class SecPolicy: Sendable {
    enum Kind: Hashable, Sendable {
        /// RFC 5280 path validation only.
        case basicX509
        /// The same, and for a server with a hostname, that the leaf names it.
        case ssl(server: Bool, hostname: String?)
    }

    let kind: Kind

    init(_ kind: Kind) { self.kind = kind }

    /// The name a server certificate must present; nil when the policy checks none.
    var serverHostname: String? {
        guard case .ssl(server: true, let hostname?) = kind else { return nil }
        return hostname
    }
}

/// The default X.509 policy (Apple's `SecPolicyCreateBasicX509`).
public func SecPolicyCreateBasicX509() -> SecPolicy { SecPolicy(.basicX509) }

/// The policy for TLS certificate chains (Apple's `SecPolicyCreateSSL`): with `server` and a hostname,
/// the leaf must be issued for that name (or IP address).
public func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy {
    SecPolicy(.ssl(server: server, hostname: hostname.map { $0 as String }))
}
