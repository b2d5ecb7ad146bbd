import Foundation

/// How a todo or a project's task repeats: every so often, counted from its
/// due date or from when it was done. Each instance is its own todo or task;
/// completing one makes the next, whose id comes from the series and the
/// occurrence's number, so every machine that completes the same instance
/// makes the same next one.
public struct Recurrence: Hashable, Sendable, Codable, FieldValue {
    /// A stretch of time between instances.
    public struct Interval: Hashable, Sendable, CustomStringConvertible {
        /// The unit of the stretch.
        public enum Unit: String, Sendable, CaseIterable { case day, weekday, week, month, year }
        /// The unit.
        public let unit: Unit
        /// How many units (1 or more; a weekday interval is always 1).
        public let count: Int

        /// An interval of `count` units.
        public init(_ unit: Unit, count: Int = 1) {
            self.unit = unit
            self.count = unit == .weekday ? 1 : max(1, count)
        }

        /// Reads "day", "weekday", "week", "month", "year", "2 weeks", "3 days", "every 2 months"…; nil if it is none
        /// of those.
        public init?(text: String) {
            // NB: "-1 week" is no interval (the dash would read as a separator, making it weekly).
            guard !text.trimmingCharacters(in: .whitespaces).hasPrefix("-") else { return nil }
            var words = text.lowercased().split(whereSeparator: { $0 == " " || $0 == "-" }).map(String.init)
            if words.first == "every" { words.removeFirst() }
            var count = 1
            if words.count == 2, let n = Int(words[0]), (1...1000).contains(n) {
                count = n
                words.removeFirst()
            }
            guard words.count == 1 else { return nil }
            var word = words[0]
            if count > 1, word.hasSuffix("s") { word.removeLast() }
            switch word {
            case "daily": word = "day"
            case "weekly": word = "week"
            case "monthly": word = "month"
            case "yearly", "annually": word = "year"
            case "weekdays": word = "weekday"
            default: break
            }
            guard let unit = Unit(rawValue: word), unit != .weekday || count == 1 else { return nil }
            self.init(unit, count: count)
        }

        /// "day", "weekday", "2 weeks"…
        public var description: String { count == 1 ? unit.rawValue : "\(count) \(unit.rawValue)s" }

        /// The date `times` intervals before `date`, at the same time of day, in `calendar`.
        public func before(_ date: Date, times: Int, calendar: Calendar) -> Date {
            guard times > 0 else { return date }
            switch unit {
            case .day: return calendar.date(byAdding: .day, value: -count * times, to: date) ?? date
            case .week: return calendar.date(byAdding: .day, value: -7 * count * times, to: date) ?? date
            case .month: return calendar.date(byAdding: .month, value: -count * times, to: date) ?? date
            case .year: return calendar.date(byAdding: .year, value: -count * times, to: date) ?? date
            case .weekday:
                var earlier = date
                for _ in 0..<min(times, 100_000) {
                    earlier = calendar.date(byAdding: .day, value: -1, to: earlier)!
                    while calendar.isDateInWeekend(earlier) {
                        earlier = calendar.date(byAdding: .day, value: -1, to: earlier)!
                    }
                }
                return earlier
            }
        }

        /// The day one interval after `day`; nil past the year 9999.
        public func after(_ day: CalendarDay) -> CalendarDay? {
            let next = after(day.utcMidnight, calendar: CalendarDay.utcCalendar)
            return ISODate.holds(next) ? CalendarDay(utcMidnight: next) : nil
        }

        /// The date one interval after `date`, at the same time of day, in `calendar`.
        public func after(_ date: Date, calendar: Calendar) -> Date {
            switch unit {
            case .day: return calendar.date(byAdding: .day, value: count, to: date)!
            case .week: return calendar.date(byAdding: .day, value: 7 * count, to: date)!
            case .month: return calendar.date(byAdding: .month, value: count, to: date)!
            case .year: return calendar.date(byAdding: .year, value: count, to: date)!
            case .weekday:
                var next = calendar.date(byAdding: .day, value: 1, to: date)!
                while calendar.isDateInWeekend(next) { next = calendar.date(byAdding: .day, value: 1, to: next)! }
                return next
            }
        }
    }

    /// What the next due date is counted from.
    public enum Anchor: String, Hashable, Sendable, Codable, CaseIterable {
        /// The instance's due date (or, without one, when it was done): a fixed schedule.
        case due
        /// When the instance was done.
        case completion
    }

    /// How often.
    public let every: Interval
    /// Counted from what.
    public let from: Anchor
    /// The id of the series: the first instance's id.
    public let series: UUID
    /// Which instance this is: 1 for the first.
    public let occurrence: Int
    /// The last moment an instance may be due (Taskwarrior's `until`, an RRULE's `UNTIL`): the series ends
    /// before an instance due later. Nil for a series with no end.
    public let until: Date?

    /// A recurrence as stored.
    public init(every: Interval, from: Anchor = .due, series: UUID, occurrence: Int = 1, until: Date? = nil) {
        self.every = every
        self.from = from
        self.series = series
        self.occurrence = min(max(1, occurrence), Recurrence.lastOccurrence)
        self.until = until
    }

    /// The same series at another instance: `occurrence`.
    public func numbered(_ occurrence: Int) -> Recurrence {
        Recurrence(every: every, from: from, series: series, occurrence: occurrence, until: until)
    }

    /// The same series, ending at `until` (nil: never).
    public func ending(_ until: Date?) -> Recurrence {
        Recurrence(every: every, from: from, series: series, occurrence: occurrence, until: until)
    }

    /// The id of the next instance: the same on every machine.
    public var nextID: UUID { NameBasedID.make(namespace: series, name: "occurrence \(occurrence + 1)") }

    /// The highest occurrence number a file may hold: a billion instances (daily, for 2.7 million years).
    public static let lastOccurrence = 1_000_000_000

    /// When the next instance is due, for an instance due `due` and done at `done`. Counted from the due date, it is
    /// one interval after it: a day stays a day, and a time keeps its time of day in `calendar` across
    /// daylight-saving changes. Counted from completion, or for an instance with no due date, it is one interval
    /// after the day it was done, at its due date's time of day if it has one, else without a time. Nil when no file
    /// could hold it (past the year 9999).
    public func nextDue(due: DueDate, done: Date, calendar: Calendar = DocketClock.calendar) -> DueDate? {
        let next: DueDate?
        switch (from, due) {
        case let (.due, .date(date)): next = .date(every.after(date, calendar: calendar))
        case let (.due, .day(day)): next = every.after(day).map(DueDate.day)
        default:
            guard let day = every.after(CalendarDay(done, in: calendar.timeZone)) else { return nil }
            guard case let .date(date) = due else { return .day(day) }
            var parts = calendar.dateComponents([.hour, .minute, .second, .nanosecond], from: date)
            parts.year = day.year
            parts.month = day.month
            parts.day = day.day
            next = calendar.date(from: parts).map(DueDate.date)
        }
        // NB: a series whose next due date no file can hold (past the year 9999) ends here.
        if case let .date(date)? = next, !ISODate.holds(date) { return nil }
        // A series with an end makes no instance due after it (a day is due at its first moment, as Taskwarrior has
        // it).
        if let until, let moment = next?.start(in: calendar.timeZone), moment > until { return nil }
        return next
    }

    /// "every week from the due date", "every 2 days from completion".
    public var description: String {
        "every \(every) from \(from == .due ? "the due date" : "completion")"
            + untilText
    }

    /// " until 2026-12-01" (the day, where it ends as a day begins in `DocketClock`'s time zone), " until
    /// 2026-12-01 18:00", or nothing for a series with no end.
    var untilText: String {
        guard let until else { return "" }
        let zone = DocketClock.timeZone
        let day = CalendarDay(until, in: zone)
        if day.start(in: zone).docketMilliseconds == until.docketMilliseconds { return " until \(day)" }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.hour, .minute], from: until)
        return " until \(day) " + String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// What it counts from for an instance due `due`: "every week from the due date", or, for one with no due date,
    /// "every week from the day it is done (it has no due date)".
    public func description(due: DueDate) -> String {
        guard due == .unknown else { return description }
        return "every \(every) from the day it is done" + (from == .due ? " (it has no due date)" : "")
            + untilText
    }

    private enum CodingKeys: String, CodingKey { case every, from, series, occurrence, until }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let text = try c.decode(String.self, forKey: .every)
        guard let every = Interval(text: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .every, in: c, debugDescription: "\"\(text)\" is not an interval such as \"week\" or \"2 days\""
            )
        }
        let occurrence = try c.decodeIfPresent(Int.self, forKey: .occurrence) ?? 1
        // NB: bounded where arithmetic uses it: the next instance is numbered occurrence + 1.
        guard occurrence <= Recurrence.lastOccurrence else {
            throw DecodingError.dataCorruptedError(
                forKey: .occurrence, in: c,
                debugDescription: "occurrence \(occurrence) is more than \(Recurrence.lastOccurrence)")
        }
        guard occurrence >= 1 else {
            throw DecodingError.dataCorruptedError(
                forKey: .occurrence, in: c, debugDescription: "occurrence \(occurrence) is not 1 or more")
        }
        guard let series = UUID(hex: try c.decode(String.self, forKey: .series)) else {
            throw DecodingError.dataCorruptedError(forKey: .series, in: c, debugDescription: "the series is not an id")
        }
        var until: Date?
        if let text = try c.decodeIfPresent(String.self, forKey: .until) {
            guard let date = ISODate.date(from: text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .until, in: c, debugDescription: "until \"\(text.prefix(40))\" is not a date")
            }
            until = date
        }
        self.init(
            every: every, from: try c.decodeIfPresent(Anchor.self, forKey: .from) ?? .due, series: series,
            occurrence: occurrence, until: until)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(every.description, forKey: .every)
        try c.encode(from, forKey: .from)
        try c.encode(series.uuidString, forKey: .series)
        try c.encode(occurrence, forKey: .occurrence)
        // NB: written only when set, so a series with no end reads as before.
        if let until { try c.encode(ISODate.string(from: until), forKey: .until) }
    }

    public static func read(from reader: inout CompactReader) throws -> Recurrence {
        guard let every = Interval(text: try reader.string()), let from = Anchor(rawValue: try reader.string()) else {
            throw CompactReader.Damaged()
        }
        let series = try UUID.read(from: &reader)
        let occurrence = Int(clamping: min(try reader.integer(Int64.self), Int64(lastOccurrence)))
        let until = try reader.integer(Int64.self)
        return Recurrence(
            every: every, from: from, series: series, occurrence: occurrence,
            until: until == Int64.min ? nil : Date(docketMilliseconds: until))
    }

    public func write(to writer: inout CompactWriter) {
        writer.string(every.description)
        writer.string(from.rawValue)
        series.write(to: &writer)
        writer.integer(Int64(occurrence))
        writer.integer(until?.docketMilliseconds ?? Int64.min)
    }

    public var fieldText: String {
        "\(description) (series \(series.uuidString.prefix(8).lowercased()), #\(occurrence))"
    }
}

/// An immutable value kept on the heap, so a rarely set field costs a pointer where it is unset.
final class Box<Value: Sendable>: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
