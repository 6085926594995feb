import KeychainFSEngine
import KeychainFSModel

/// Implemented by LocalAuthentication's LAContext and read by Security (kSecUseAuthenticationContext) and
/// CryptoKit: here, so that none of the modules depends on another (each is a product a user's package can
/// alias on its own: docs/swift-api.md).
package protocol SecAuthenticationContextProviding: LAContextRepresentable {
    /// LAContext.interactionNotAllowed: fail instead of prompting.
    var interactionNotAllowed: Bool { get }
    /// What the engine reads of the context: its evaluation, reuse duration and credential
    /// (``AuthenticationOptions/ContextKey``).
    var authenticationContext: KeychainDictionary { get }
}

extension SecAuthenticationContextProviding {
    /// A context that only says whether it may prompt.
    package var authenticationContext: KeychainDictionary {
        [AuthenticationOptions.ContextKey.interactionNotAllowed: .bool(interactionNotAllowed)]
    }
}

/// What CryptoKit's Secure Enclave keys take as `authenticationContext`: LocalAuthentication's `LAContext`
/// (which CryptoKit names through this protocol so that it need not depend on LocalAuthentication).
public protocol LAContextRepresentable: AnyObject, Sendable {}

/// What CryptoKit's Secure Enclave keys take as `accessControl`: Security's `SecAccessControl`.
public protocol SecAccessControlRepresentable: AnyObject, Sendable {}

/// Implemented by Security's SecAccessControl: what a Secure Enclave key's access control is made of.
package protocol SecAccessControlProviding: SecAccessControlRepresentable {
    /// kSecAttrAccessible's raw value.
    var protectionClass: String { get }
    /// SecAccessControlCreateFlags bits.
    var flagBits: UInt64 { get }
}
