import Foundation

/// A moment as people read it, in lists and in messages alike: `2026-12-24 18:30`, in the local time zone.
public enum ShownDate {
    /// `2026-12-24 18:30`: the moment's day and time of day (to the minute, rounded down) in `zone`.
    public static func string(_ date: Date, zone: TimeZone? = nil) -> String {
        // NB: the local calendar DocketClock keeps, and the digits padded by hand: a new calendar and
        // `String(format:)` for each date were 1.5 M instructions of `docket show <id>`, which shows two.
        var calendar = DocketClock.calendar
        if let zone, zone != calendar.timeZone { calendar.timeZone = zone }
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return padded(parts.year, 4) + "-" + padded(parts.month, 2) + "-" + padded(parts.day, 2) + " "
            + padded(parts.hour, 2) + ":" + padded(parts.minute, 2)
    }

    /// `number` in decimal, with zeros before it to `width` digits, as `%0<width>d` writes it.
    private static func padded(_ number: Int?, _ width: Int) -> String {
        let number = number ?? 0
        let digits = String(number.magnitude)
        let zeros = String(repeating: "0", count: max(0, width - digits.count - (number < 0 ? 1 : 0)))
        return (number < 0 ? "-" : "") + zeros + digits
    }
}
