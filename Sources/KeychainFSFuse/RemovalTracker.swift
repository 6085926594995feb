import Foundation

/// Lets `rm -r ITEM` work while `rm ITEM/value` alone is refused (docs/spec.md §4: unlink of `value` is EPERM).
/// A recursive remove lists the item directory and then unlinks `value` from the same process: that
/// unlink is accepted and hides `value` for a short while, and the `rmdir` that follows deletes the item.
/// If no `rmdir` comes, `value` reappears: nothing stored ever changes on an unlink.
struct RemovalTracker {
    static let window: TimeInterval = 10

    /// Keyed by the item path's bytes (Strings compare by canonical equivalence; names must not).
    private var listings: [[UInt8]: (pid: Int32, at: Date)] = [:]
    private var hidden: [[UInt8]: Date] = [:]

    mutating func noteListing(of itemPath: String, by pid: Int32) {
        expire()
        listings[Array(itemPath.utf8)] = (pid, Date())
    }

    /// Whether an unlink of `itemPath/value` by `pid` is part of a recursive removal; if so, hides `value`.
    mutating func acceptUnlink(in itemPath: String, by pid: Int32) -> Bool {
        expire()
        guard let listing = listings[Array(itemPath.utf8)], listing.pid == pid else { return false }
        hidden[Array(itemPath.utf8)] = Date()
        return true
    }

    func isValueHidden(in itemPath: String) -> Bool {
        hidden[Array(itemPath.utf8)].map { Date().timeIntervalSince($0) < Self.window } ?? false
    }

    mutating func forget(_ itemPath: String) {
        listings[Array(itemPath.utf8)] = nil
        hidden[Array(itemPath.utf8)] = nil
    }

    private mutating func expire() {
        let now = Date()
        listings = listings.filter { now.timeIntervalSince($0.value.at) < Self.window }
        hidden = hidden.filter { now.timeIntervalSince($0.value) < Self.window }
    }
}
