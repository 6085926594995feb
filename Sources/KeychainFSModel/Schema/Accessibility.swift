/// The seven `kSecAttrAccessible` values (docs/reference/keychain-semantics.md §1.3, docs/spec.md §3).
public enum Accessibility: String, CaseIterable, Sendable {
    case whenUnlocked = "ak"
    case afterFirstUnlock = "ck"
    case always = "dk"
    case whenUnlockedThisDeviceOnly = "aku"
    case afterFirstUnlockThisDeviceOnly = "cku"
    case alwaysThisDeviceOnly = "dku"
    case whenPasscodeSetThisDeviceOnly = "akpu"

    /// The three protection tiers: which device states make a class available.
    public enum Tier: Sendable { case a, c, d }

    public var tier: Tier {
        switch self {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: .a
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly: .c
        case .always, .alwaysThisDeviceOnly: .d
        }
    }

    /// Stable small integer stored in the `keyclass` column (so the column holds no attribute text).
    package var storageIndex: Int { Self.allCases.firstIndex(of: self)! + 1 }
    package init?(storageIndex: Int) {
        guard storageIndex >= 1, storageIndex <= Self.allCases.count else { return nil }
        self = Self.allCases[storageIndex - 1]
    }
}
