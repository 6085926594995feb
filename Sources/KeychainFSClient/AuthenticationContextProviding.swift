import KeychainFSEngine
import KeychainFSModel

/// Implemented by LocalAuthentication's LAContext and read by Security for kSecUseAuthenticationContext:
/// here, so that neither of the two modules depends on the other (each is a product a user's package can
/// alias on its own: docs/swift-api.md).
package protocol SecAuthenticationContextProviding: AnyObject, Sendable {
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
