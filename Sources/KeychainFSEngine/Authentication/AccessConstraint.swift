import KeychainFSModel
import KeychainFSStore
import Foundation

/// One way of authenticating that an access-control constraint may ask for.
public enum AuthenticationFactor: String, Sendable, Hashable, CaseIterable {
    case biometryAny, biometryCurrentSet, passcode, watch, applicationPassword
}

/// An item's SecAccessControlCreateFlags read as a constraint (docs/authentication-table.md, rule 1):
/// groups of factors, each group satisfied by any one of its factors; `.or` needs one group, otherwise all.
public struct AccessConstraint: Sendable, Equatable {
    /// Apple's bit values (SecAccessControlCreateFlags).
    public enum Bit {
        public static let userPresence: Int64 = 1 << 0
        public static let biometryAny: Int64 = 1 << 1
        public static let biometryCurrentSet: Int64 = 1 << 3
        public static let devicePasscode: Int64 = 1 << 4
        public static let watch: Int64 = 1 << 5
        public static let or: Int64 = 1 << 14
        public static let and: Int64 = 1 << 15
        public static let privateKeyUsage: Int64 = 1 << 30
        public static let applicationPassword: Int64 = 1 << 31
    }

    /// Each inner set is satisfied by any one of its factors.
    public var groups: [Set<AuthenticationFactor>]
    /// `.or`: one group suffices; otherwise every group is needed.
    public var anyGroup: Bool

    /// The constraint of an item's `accc` flags; nil when they ask for no authentication.
    public init?(flags: Int64) {
        var groups: [Set<AuthenticationFactor>] = []
        if flags & Bit.userPresence != 0 { groups.append([.biometryAny, .passcode]) }
        if flags & Bit.biometryAny != 0 { groups.append([.biometryAny]) }
        if flags & Bit.biometryCurrentSet != 0 { groups.append([.biometryCurrentSet]) }
        if flags & Bit.devicePasscode != 0 { groups.append([.passcode]) }
        if flags & Bit.watch != 0 { groups.append([.watch]) }
        let anyGroup = flags & Bit.or != 0
        // The application password is always needed in addition (it derives the item's key on Apple).
        let password = flags & Bit.applicationPassword != 0
        guard !groups.isEmpty || password else { return nil }
        self.groups = groups
        self.anyGroup = anyGroup
        if password { self.groups.append([.applicationPassword]) }
        passwordRequired = password
    }

    /// Whether the application password is needed whatever `.or` says.
    public private(set) var passwordRequired = false

    /// The constraint's other factors, once the application password is accounted for.
    var withoutPassword: AccessConstraint {
        var rest = self
        rest.groups.removeAll { $0 == [.applicationPassword] }
        rest.passwordRequired = false
        return rest
    }

    /// The constraint of an item's attributes; nil when it has none.
    public init?(attributes: [String: KeychainValue]) {
        guard let flags = attributes[Attributes.accessControl.code]?.numberValue else { return nil }
        self.init(flags: flags)
    }
}
