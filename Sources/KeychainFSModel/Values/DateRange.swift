import Foundation

/// The dates an attribute can hold: finite, in years 1 through 9999, so every date has an ISO 8601
/// spelling with a four-digit year and its sign. Anything else (NaN, ±inf, 1e18 s) is errSecParam
/// rather than a name that prints like another date.
public enum DateRange {
    /// 0001-01-01T00:00:00.000Z
    public static let earliest = Date(timeIntervalSinceReferenceDate: -63_113_904_000)
    /// 9999-12-31T23:59:59.999Z
    public static let latest = Date(timeIntervalSinceReferenceDate: 252_423_993_599.999)

    public static func contains(_ date: Date) -> Bool {
        let seconds = date.timeIntervalSinceReferenceDate
        return seconds.isFinite && seconds >= earliest.timeIntervalSinceReferenceDate
            && seconds <= latest.timeIntervalSinceReferenceDate
    }
}
