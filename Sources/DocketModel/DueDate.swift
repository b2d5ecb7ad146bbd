import Foundation

/// When a todo or a task is due: not at all, on a day (without a time), or at a moment (a day and a time of day).
/// A todo's or task's wait and scheduled dates are the same kind of value, read and written the same way.
///
/// A file holds a day as `"2026-11-24"` and a moment as the time a local clock
/// showed, with its offset from UTC (`"2026-11-24T14:00:00.000+01:00"`).
/// Before store format 3 every due date was a UTC moment (`…Z`), and one
/// without a time was kept at noon local time: a `…Z` moment at exactly noon
/// in the local time zone still reads as that day, any other as a moment.
public enum DueDate: Hashable, Sendable, Codable, FieldValue {
    /// No due date has been set.
    case unknown
    /// Due at this moment: a due date with a time of day.
    case date(Date)
    /// Due on this day, with no time: due all day, overdue once the day has ended.
    case day(CalendarDay)

    /// The moment it stands for: for a day, its noon in `DocketClock`'s time zone (so lists sort a day among the
    /// times of that day); nil when unknown.
    public var date: Date? {
        switch self {
        case .unknown: nil
        case let .date(date): date
        case let .day(day): day.noon(in: DocketClock.timeZone)
        }
    }

    /// The moment it begins: a day's first moment in `zone` (midnight, or the hour a daylight-saving change starts it
    /// at), a time itself; nil when unknown. A wait for a day ends as the day begins.
    public func start(in zone: TimeZone = DocketClock.timeZone) -> Date? {
        switch self {
        case .unknown: nil
        case let .date(date): date
        case let .day(day): day.start(in: zone)
        }
    }

    /// The day, for a due date without a time; nil otherwise.
    public var day: CalendarDay? {
        if case let .day(day) = self { return day }
        return nil
    }

    /// Whether it has a time of day.
    public var hasTime: Bool {
        if case .date = self { return true }
        return false
    }

    /// The day it falls on in `zone`; nil when unknown.
    public func day(in zone: TimeZone) -> CalendarDay? {
        switch self {
        case .unknown: nil
        case let .date(date): CalendarDay(date, in: zone)
        case let .day(day): day
        }
    }

    /// Whether it has passed at `now`: a moment once it is past, a day once it has ended (in `calendar`'s time zone).
    public func isOverdue(at now: Date, calendar: Calendar = DocketClock.calendar) -> Bool {
        switch self {
        case .unknown: false
        case let .date(date): date < now
        case let .day(day): day < CalendarDay(now, in: calendar.timeZone)
        }
    }

    /// Whether it is unknown: an item's file leaves out a wait or scheduled date it does not have.
    public var isAbsent: Bool { self == .unknown }

    /// `.date(date)`, or `.unknown` for nil: a due date at that moment.
    public init(_ date: Date?) {
        self = date.map(DueDate.date) ?? .unknown
    }

    public static func == (a: DueDate, b: DueDate) -> Bool {
        switch (a, b) {
        case (.unknown, .unknown): true
        case let (.date(x), .date(y)): x.docketMilliseconds == y.docketMilliseconds
        case let (.day(x), .day(y)): x == y
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .unknown: hasher.combine(0)
        case let .date(date):
            hasher.combine(1)
            hasher.combine(date.docketMilliseconds)
        case let .day(day):
            hasher.combine(2)
            hasher.combine(day)
        }
    }

    /// The due date a file's text names, in `zone` for a text from before store format 3; nil for text that is no
    /// date.
    public static func reading(_ text: String, zone: TimeZone = DocketClock.timeZone) -> DueDate? {
        if let day = CalendarDay(text) { return .day(day) }
        guard let date = ISODate.date(from: text) else { return nil }
        // NB: before store format 3 a due date without a time was kept as noon local time, in UTC; a due date with a
        // time is written with its offset since, so only a UTC text can be one of those.
        if text.last == "Z" || text.last == "z", CalendarDay.isNoon(date, in: zone) {
            return .day(CalendarDay(date, in: zone))
        }
        return .date(date)
    }

    /// The text a file holds: `2026-11-24` for a day, the moment with `zone`'s offset (the local time zone's when
    /// nil) for a time; nil when unknown.
    public func text(zone: TimeZone? = nil) -> String? {
        switch self {
        case .unknown: nil
        // NB: the local time zone only for a time: reading it first makes the local calendar (1.5 M instructions),
        // which `docket add` of a todo without a due date never needed but paid for in its undo record.
        case let .date(date): ISODate.string(from: date, offsetIn: zone ?? DocketClock.timeZone)
        case let .day(day): day.description
        }
    }

    // JSON: `null` for unknown, else the day or the moment.
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .unknown
            return
        }
        let text = try c.decode(String.self)
        guard let due = DueDate.reading(text) else {
            throw DecodingError.dataCorruptedError(
                in: c,
                debugDescription:
                    "\"\(text)\" is not a due date such as 2026-11-22 or 2026-11-22T09:30:00.000+01:00")
        }
        self = due
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        if case let .date(date) = self, !ISODate.holds(date) {
            throw EncodingError.invalidValue(
                date,
                .init(
                    codingPath: encoder.codingPath,
                    debugDescription: "the due date is outside the years 1 to 9999 a Docket file can hold"))
        }
        guard let text = text() else { return try c.encodeNil() }
        try c.encode(text)
    }

    public static func read(from reader: inout CompactReader) throws -> DueDate {
        switch try reader.integer(UInt8.self) {
        case 0: return .unknown
        case 1: return .date(Date(docketMilliseconds: try reader.integer(Int64.self)))
        case 2:
            guard let day = CalendarDay(daysSince1970: try reader.integer(Int64.self)) else {
                throw CompactReader.Damaged()
            }
            return .day(day)
        default: throw CompactReader.Damaged()
        }
    }

    public func write(to writer: inout CompactWriter) {
        switch self {
        case .unknown: writer.integer(UInt8(0))
        case let .date(date):
            writer.integer(UInt8(1))
            writer.integer(date.docketMilliseconds)
        case let .day(day):
            writer.integer(UInt8(2))
            writer.integer(day.daysSince1970)
        }
    }

    // NB: the same text on every machine, whatever its time zone: a merge breaks a tie by comparing it. A day is
    // `2026-11-24`, a time the UTC moment `2026-11-24T13:00:00.000Z`.
    public var fieldText: String {
        switch self {
        case .unknown: "none"
        case let .date(date): ISODate.string(from: date)
        case let .day(day): day.description
        }
    }
}
