import Foundation

/// A moment as people read it, in lists and in messages alike: `2026-12-24 18:30`, in the local time zone.
public enum ShownDate {
    /// `2026-12-24 18:30`: the moment's day and time of day (to the minute, rounded down) in `zone`.
    public static func string(_ date: Date, zone: TimeZone = DocketClock.timeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
            parts.minute ?? 0)
    }
}
