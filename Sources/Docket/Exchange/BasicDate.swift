import DocketModel
import Foundation

/// Dates in ISO 8601's basic form, as Taskwarrior, Timewarrior and iCalendar
/// write them: `20261122T101500Z` (UTC), `20261122T101500` (local, or in a
/// given zone) and `20261122` (a day).
enum BasicDate {
    /// The date of `20261122T101500Z`, or of `20261122T101500` in `zone`; nil for anything else.
    static func date(_ text: String, zone: TimeZone = .current) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 15 || bytes.count == 16, bytes[8] == UInt8(ascii: "T") else { return nil }
        guard let (year, month, day) = day(bytes[0..<8]), let hms = number(bytes[9..<15]) else { return nil }
        let (hour, minute, second) = (hms / 10000, hms / 100 % 100, hms % 100)
        guard hour < 24, minute < 60, second < 61 else { return nil }
        if bytes.count == 16 {
            guard bytes[15] == UInt8(ascii: "Z") else { return nil }
            let iso = String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day, hour, minute, min(second, 59))
            return ISODate.date(from: iso)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(
            from: DateComponents(
                year: year, month: month, day: day, hour: hour, minute: minute, second: min(second, 59)))
    }

    /// Noon of the day `20261122` in `zone`, the time Docket gives a date without one; nil for anything else.
    static func day(_ text: String, zone: TimeZone = .current) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count == 8, let (year, month, day) = day(bytes[0..<8]) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12))
    }

    /// `20261122T101500Z`: UTC, to the second.
    static func string(_ date: Date) -> String {
        let iso = ISODate.string(from: date) // 2026-11-22T10:15:00.123Z
        return String(iso.prefix(19).filter { $0 != "-" && $0 != ":" }) + "Z"
    }

    /// `20261122`: the day of `date` in `zone`.
    static func dayString(_ date: Date, zone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d%02d%02d", parts.year!, parts.month!, parts.day!)
    }

    private static func day(_ bytes: ArraySlice<UInt8>) -> (Int, Int, Int)? {
        guard let value = number(bytes) else { return nil }
        let (year, month, day) = (value / 10000, value / 100 % 100, value % 100)
        // NB: ISODate checks the day against its month.
        guard year >= 1, (1...12).contains(month), (1...31).contains(day),
            ISODate.date(from: String(format: "%04d-%02d-%02dT00:00:00Z", year, month, day)) != nil
        else { return nil }
        return (year, month, day)
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
