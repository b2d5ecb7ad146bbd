import Foundation

/// A day of the calendar, without a time of day or a time zone: what a due
/// date without a time names (`2026-11-24`), the same day wherever it is read.
public struct CalendarDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01 (negative before it).
    public let daysSince1970: Int64

    /// The days a file can hold: the years 1 to 9999.
    static let range: ClosedRange<Int64> = ISODate.days(fromCivil: 1, 1, 1)...ISODate.days(fromCivil: 9999, 12, 31)

    /// The day `daysSince1970` days after 1970-01-01; nil outside the years 1 to 9999.
    public init?(daysSince1970: Int64) {
        guard CalendarDay.range.contains(daysSince1970) else { return nil }
        self.daysSince1970 = daysSince1970
    }

    /// The day of this year, month and day of the month; nil for a day no calendar has, or outside the years 1 to 9999.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            (1...ISODate.daysIn(month: Int64(month), year: Int64(year))).contains(Int64(day))
        else { return nil }
        self.init(daysSince1970: ISODate.days(fromCivil: Int64(year), Int64(month), Int64(day)))
    }

    /// The day `date` falls on in `zone`.
    public init(_ date: Date, in zone: TimeZone) {
        let local = date.docketMilliseconds + Int64(zone.secondsFromGMT(for: date)) * 1000
        let days = ISODate.floorDivide(local, 86_400_000).0
        daysSince1970 = min(max(days, CalendarDay.range.lowerBound), CalendarDay.range.upperBound)
    }

    /// The day of a text `YYYY-MM-DD`; nil for any other text.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
        self.init(year: year, month: month, day: day)
    }

    private var civil: (year: Int, month: Int, day: Int) {
        let (y, m, d) = ISODate.civil(fromDays: daysSince1970)
        return (Int(y), Int(m), Int(d))
    }

    /// The year.
    public var year: Int { civil.year }
    /// The month, 1 to 12.
    public var month: Int { civil.month }
    /// The day of the month, 1 to 31.
    public var day: Int { civil.day }

    /// `2026-11-24`.
    public var description: String {
        let (y, m, d) = civil
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// The day `count` days later (earlier when negative), kept within the years 1 to 9999.
    public func adding(days count: Int) -> CalendarDay {
        let days = daysSince1970.addingReportingOverflow(Int64(count))
        return CalendarDay(daysSince1970: days.overflow ? daysSince1970 : days.partialValue)
            ?? CalendarDay(daysSince1970: count < 0 ? CalendarDay.range.lowerBound : CalendarDay.range.upperBound)!
    }

    /// The day `count` days, weeks, months or years later (earlier when negative), as a calendar counts them (January
    /// 31 and one month is the last day of February); nil outside the years 1 to 9999 or for another component.
    public func adding(_ component: Calendar.Component, _ count: Int) -> CalendarDay? {
        guard [.day, .weekOfYear, .month, .year].contains(component), abs(count) <= 4_000_000 else { return nil }
        let next = CalendarDay.utcCalendar.date(byAdding: component, value: count, to: utcMidnight)
        return next.flatMap { ISODate.holds($0) ? CalendarDay(utcMidnight: $0) : nil }
    }

    /// The day of the week: 0 for Sunday to 6 for Saturday.
    public var weekday: Int { Int((daysSince1970 % 7 + 11) % 7) }

    /// Its first moment in `zone` (midnight, or the hour a daylight-saving change starts it at).
    public func start(in zone: TimeZone) -> Date {
        DocketClock.gregorian(in: zone).startOfDay(for: noon(in: zone))
    }

    /// Noon of the day in `zone`: the moment Docket kept a due date without a time at before store format 3.
    public func noon(in zone: TimeZone) -> Date {
        let utcNoon = Double(daysSince1970) * 86_400 + 43_200
        let first = zone.secondsFromGMT(for: Date(timeIntervalSince1970: utcNoon))
        let guess = Date(timeIntervalSince1970: utcNoon - Double(first))
        let second = zone.secondsFromGMT(for: guess)
        return second == first ? guess : Date(timeIntervalSince1970: utcNoon - Double(second))
    }

    /// Whether `date` is noon exactly, to the millisecond, in `zone`: how a due date without a time was kept before
    /// store format 3.
    static func isNoon(_ date: Date, in zone: TimeZone) -> Bool {
        let local = date.docketMilliseconds + Int64(zone.secondsFromGMT(for: date)) * 1000
        return ISODate.floorDivide(local, 86_400_000).1 == 43_200_000
    }

    /// The day as a moment in a calendar that has no daylight saving (UTC midnight), for calendar arithmetic that
    /// counts days, weeks, months and years, such as `Recurrence.Interval.after`.
    var utcMidnight: Date { Date(timeIntervalSince1970: Double(daysSince1970) * 86_400) }

    /// The day of a UTC midnight from `utcMidnight`, after calendar arithmetic.
    init(utcMidnight date: Date) {
        self.init(date, in: CalendarDay.utc)
    }

    /// UTC, where `utcMidnight` arithmetic is done.
    static let utc = TimeZone(identifier: "UTC")!
    /// The Gregorian calendar in UTC.
    static let utcCalendar = DocketClock.gregorian(in: utc)

    public static func < (a: CalendarDay, b: CalendarDay) -> Bool { a.daysSince1970 < b.daysSince1970 }
}
