/// A failed keychain call: Apple's OSStatus plus a sentence naming the problem.
/// Messages name keys and attribute codes, never attribute values or secrets.
public struct KeychainError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The `errSec…` code (see ``SecStatus``).
    public let status: OSStatus
    /// What went wrong, for people.
    public let message: String

    public init(_ status: OSStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    public var description: String { "\(SecStatus.name(of: status)) (\(status)): \(message)" }

    package static func param(_ m: String) -> KeychainError { .init(SecStatus.param, m) }
    package static func noSuchAttr(_ code: String, in cls: String) -> KeychainError {
        .init(SecStatus.noSuchAttr, "attribute '\(code)' does not exist in class '\(cls)'")
    }
    package static let notFound = KeychainError(SecStatus.itemNotFound, "no item matches the query")
    package static func locked(_ pdmn: String) -> KeychainError {
        .init(
            SecStatus.interactionNotAllowed,
            "items with accessibility '\(pdmn)' are unavailable in the current device state")
    }
    package static func missingEntitlement(_ m: String) -> KeychainError { .init(SecStatus.missingEntitlement, m) }
}
