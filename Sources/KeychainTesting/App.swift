import KeychainFSEngine
import KeychainFSModel

/// An app installed on a simulated device: its bundle id and its entitlements' keychain access groups
/// (`keychain-access-groups`, then app groups, as iOS orders them). The first group is where its new
/// items go; asking for a group it lacks is errSecMissingEntitlement (-34018); two apps that list the
/// same group share its items.
public struct App: Sendable, Hashable {
    public let bundleID: String
    public let accessGroups: [String]

    /// An app with `accessGroups`, or, when none are given, its bundle id as its only group (what an app
    /// without the entitlement gets). Write team-prefixed groups as the tests expect them
    /// (`"ABCDE12345.com.example.shared"`): no `$(AppIdentifierPrefix)` is expanded here.
    public init(bundleID: String, accessGroups: [String] = []) {
        self.bundleID = bundleID
        self.accessGroups = accessGroups.isEmpty ? [bundleID] : accessGroups
    }

    /// The app calls made with plain `run { … }` come from: access group `default`, as the CLI's.
    public static let unnamed = App(bundleID: "default", accessGroups: Caller.defaultAccessGroups)

    package var caller: Caller { Caller(accessGroups: accessGroups, application: bundleID) }
}
