import Foundation

/// Lets `rm -r ITEM` work while `rm ITEM/value` alone is refused (SPEC §4: unlink of `value` is EPERM).
/// A recursive remove lists the item directory and then unlinks `value` from the same process: that
/// unlink is accepted and hides `value` for a short while, and the `rmdir` that follows deletes the item.
/// If no `rmdir` comes, `value` reappears: nothing stored ever changes on an unlink.
struct RemovalTracker {
    static let window: TimeInterval = 10

    private var listings: [String: (pid: Int32, at: Date)] = [:]
    private var hidden: [String: Date] = [:]

    mutating func noteListing(of itemPath: String, by pid: Int32) {
        expire()
        listings[itemPath] = (pid, Date())
    }

    /// Whether an unlink of `itemPath/value` by `pid` is part of a recursive removal; if so, hides `value`.
    mutating func acceptUnlink(in itemPath: String, by pid: Int32) -> Bool {
        expire()
        guard let listing = listings[itemPath], listing.pid == pid else { return false }
        hidden[itemPath] = Date()
        return true
    }

    func isValueHidden(in itemPath: String) -> Bool {
        hidden[itemPath].map { Date().timeIntervalSince($0) < Self.window } ?? false
    }

    mutating func forget(_ itemPath: String) {
        listings[itemPath] = nil
        hidden[itemPath] = nil
    }

    private mutating func expire() {
        let now = Date()
        listings = listings.filter { now.timeIntervalSince($0.value.at) < Self.window }
        hidden = hidden.filter { now.timeIntervalSince($0.value) < Self.window }
    }
}
