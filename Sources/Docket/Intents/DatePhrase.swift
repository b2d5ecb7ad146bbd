import DocketModel
import Foundation

/// The dates people type, as a due date: a day (`tomorrow`, `fri`, `in 3 days`,
/// `2026-12-03`), a day and a time (`tomorrow 9am`, `fri 14:00`, `2026-12-03
/// 17:30`), a time alone (`9am`: the next one, today or tomorrow), or a moment
/// from now (`in 2 hours`). Words are read in any case, in the time zone of the
/// calendar given. A day without a time is due all that day; with a time, at it.
///
/// Every command that takes a date reads it here: `--due`, `docket due`, the
/// editor form, and the filters (`--before`, `--done-since`, `report --since`).
public enum DatePhrase {
    /// What a date can be, for messages and help.
    public static let forms =
        "today, tomorrow, a weekday (fri), next week, next month, in 3 days (weeks, months, years), +3d, eow, eom, "
        + "eoy or YYYY-MM-DD, each with a time after it if wanted (9am, 9:30pm, 17:30, noon); a time alone "
        + "(the next one); or in 2 hours"

    /// Why a text is not a date.
    public enum Problem: Error, Equatable {
        /// It is none of the forms.
        case notADate
        /// It names a day outside the years 1 to 9999 a file can hold.
        case outsideYears
    }

    /// The due date `text` names at `now`, in `calendar`'s time zone. With `past` (for filters such as
    /// `--done-since friday`) a weekday is its last occurrence, today included, and a time alone is today's. With
    /// `thisWeek` (for the due filters, `--due-after monday --due-before saturday`) a weekday is that day of this
    /// week, Monday to Sunday, passed or not, and `next friday` the one a week on.
    public static func read(
        _ text: String, now: Date = DocketClock.now, calendar: Calendar = DocketClock.calendar, past: Bool = false,
        thisWeek: Bool = false
    ) throws(Problem) -> DueDate {
        var words = self.words(text)
        guard !words.isEmpty else { throw .notADate }
        let today = CalendarDay(now, in: calendar.timeZone)
        // A moment: now, in 2 hours, 2026-12-03T17:30.
        if let moment = try moment(words, now: now, calendar: calendar) { return .date(moment) }
        // A time before or after the day, "at" between them.
        var time: (hour: Int, minute: Int)?
        if let last = words.last, let read = timeOfDay(last) {
            time = read
            words.removeLast()
        } else if let first = words.first, let read = timeOfDay(first) {
            time = read
            words.removeFirst()
        }
        if time != nil, words.last == "at" { words.removeLast() }
        let day: CalendarDay
        if words.isEmpty {
            guard let time else { throw .notADate }
            // A time alone is the next one: today's, or tomorrow's once it has passed.
            let todays = try moment(today, time, calendar: calendar)
            if past || todays > now { return .date(todays) }
            return .date(try moment(today.adding(days: 1), time, calendar: calendar))
        }
        day = try self.day(words, today: today, past: past, thisWeek: thisWeek)
        guard let time else { return .day(day) }
        return .date(try moment(day, time, calendar: calendar))
    }

    /// The time of day `text` asks for and the one `due` (what `read` gave for it, in `calendar`) is at, as "02:30"
    /// and "03:30", when they differ: a time a daylight-saving change skips (2:30 on the night clocks go from 2:00 to
    /// 3:00), which `read` moves forward by the gap, as the calendar does. Nil for any other text or date.
    public static func skippedTime(_ text: String, reading due: DueDate, calendar: Calendar = DocketClock.calendar)
        -> (asked: String, given: String)?
    {
        guard case let .date(moment) = due else { return nil }
        let words = self.words(text)
        var asked = words.last.flatMap(timeOfDay) ?? words.first.flatMap(timeOfDay)
        if asked == nil, words.count == 1, words[0].count == 16, let t = words[0].firstIndex(of: "t") {
            asked = timeOfDay(String(words[0][t...].dropFirst()))
        }
        guard let asked else { return nil }
        let given = calendar.dateComponents([.hour, .minute], from: moment)
        guard let hour = given.hour, let minute = given.minute, (hour, minute) != (asked.hour, asked.minute) else {
            return nil
        }
        func shown(_ hour: Int, _ minute: Int) -> String {
            (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
        }
        return (shown(asked.hour, asked.minute), shown(hour, minute))
    }

    /// The words of a text, lower case, with "9 am" as "9am".
    private static func words(_ text: String) -> [String] {
        var words: [String] = []
        for word in text.lowercased().split(whereSeparator: \.isWhitespace).map(String.init) {
            let stripped = word.replacingOccurrences(of: ".", with: "")
            if stripped == "am" || stripped == "pm", let last = words.last,
                last.allSatisfy(\.isNumber) || last.contains(":")
            {
                words[words.count - 1] = last + stripped
            } else {
                words.append(word)
            }
        }
        return words
    }

    /// A day phrase: today, tomorrow, yesterday, a weekday, next week…, an offset, in 3 days, YYYY-MM-DD.
    private static func day(_ words: [String], today: CalendarDay, past: Bool, thisWeek: Bool) throws(Problem)
        -> CalendarDay
    {
        func checked(_ day: CalendarDay?) throws(Problem) -> CalendarDay {
            guard let day else { throw .outsideYears }
            return day
        }
        switch words {
        case ["today"], ["eod"]: return today
        case ["tomorrow"]: return today.adding(days: 1)
        case ["yesterday"]: return today.adding(days: -1)
        case ["eow"]: return today.adding(days: (7 - today.weekday) % 7) // the coming Sunday, today on a Sunday
        case ["next", "week"]: return today.adding(days: 8 - (today.weekday == 0 ? 7 : today.weekday)) // Monday
        case ["eom"]: return try checked(firstOfMonth(today).adding(.month, 1)?.adding(days: -1))
        case ["next", "month"]: return try checked(firstOfMonth(today).adding(.month, 1))
        case ["eoy"]: return try checked(CalendarDay(year: today.year, month: 12, day: 31))
        case ["next", "year"]: return try checked(CalendarDay(year: today.year + 1, month: 1, day: 1))
        default: break
        }
        let names = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
        let name = words.count == 2 && words[0] == "next" ? words[1] : words.count == 1 ? words[0] : ""
        if let index = names.firstIndex(where: { $0 == name || ($0.hasPrefix(name) && name.count >= 3) }) {
            if thisWeek {
                // Days counted from Monday: Sunday ends the week.
                let offset = (index + 6) % 7 - (today.weekday + 6) % 7
                return today.adding(days: offset + (words.count == 2 ? 7 : 0))
            }
            if past { return today.adding(days: -((today.weekday - index + 7) % 7)) }
            let ahead = (index - today.weekday + 7) % 7
            return today.adding(days: ahead == 0 ? 7 : ahead)
        }
        // in 3 days, in 2 weeks, in a month
        if words.count == 3, words[0] == "in", let count = words[1] == "a" || words[1] == "an" ? 1 : Int(words[1]),
            count >= 0, let unit = unit(words[2])
        {
            return try checked(today.adding(unit, count))
        }
        // +3d, -1w, +1m, +1y
        if words.count == 1, let word = words.first, let sign = word.first, sign == "+" || sign == "-", word.count >= 3,
            let unit = unit(String(word.last!)), word.dropFirst().dropLast().allSatisfy({ $0.isASCII && $0.isNumber })
        {
            guard let magnitude = Int(word.dropFirst().dropLast()) else { throw .outsideYears }
            return try checked(today.adding(unit, sign == "-" ? -magnitude : magnitude))
        }
        if words.count == 1, let day = CalendarDay(words[0]) { return day }
        throw .notADate
    }

    /// The first day of `day`'s month.
    private static func firstOfMonth(_ day: CalendarDay) -> CalendarDay { day.adding(days: 1 - day.day) }

    /// days, weeks, months, years (d, w, m, y), as a calendar component.
    private static func unit(_ word: String) -> Calendar.Component? {
        switch word {
        case "d", "day", "days": .day
        case "w", "week", "weeks": .weekOfYear
        case "m", "month", "months": .month
        case "y", "year", "years": .year
        default: nil
        }
    }

    /// A time of day: 9am, 9:30pm, 12am (midnight), 17:30, 9:05, noon.
    static func timeOfDay(_ word: String) -> (hour: Int, minute: Int)? {
        if word == "noon" { return (12, 0) }
        var body = Substring(word)
        var half: String?
        if body.hasSuffix("am") || body.hasSuffix("pm") {
            half = String(body.suffix(2))
            body = body.dropLast(2)
        }
        let parts = body.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
            (1...2).contains(parts[0].count), let hour = Int(parts[0])
        else { return nil }
        var minute = 0
        if parts.count == 2 {
            guard parts[1].count == 2, let read = Int(parts[1]), (0..<60).contains(read) else { return nil }
            minute = read
        }
        guard let half else { return parts.count == 2 && (0..<24).contains(hour) ? (hour, minute) : nil }
        guard (1...12).contains(hour) else { return nil }
        return (hour % 12 + (half == "pm" ? 12 : 0), minute)
    }

    /// A moment phrase: now, in 2 hours, in 30 minutes, 2026-12-03T17:30; nil for any other.
    private static func moment(_ words: [String], now: Date, calendar: Calendar) throws(Problem) -> Date? {
        if words == ["now"] { return now }
        if words.count == 3, words[0] == "in", let count = words[1] == "a" || words[1] == "an" ? 1 : Int(words[1]),
            (0...10_000_000).contains(count)
        {
            let seconds: Int? =
                switch words[2] {
                case "hour", "hours", "h": 3600
                case "minute", "minutes", "min", "mins": 60
                default: nil
                }
            guard let seconds else { return nil }
            let moment = now.addingTimeInterval(TimeInterval(count * seconds))
            guard ISODate.holds(moment) else { throw .outsideYears }
            return moment
        }
        if words.count == 1, words[0].count == 16, let t = words[0].firstIndex(of: "t"),
            let day = CalendarDay(String(words[0][..<t])), let time = timeOfDay(String(words[0][t...].dropFirst()))
        {
            return try moment(day, time, calendar: calendar)
        }
        return nil
    }

    /// The moment `time` on `day` in `calendar`.
    private static func moment(_ day: CalendarDay, _ time: (hour: Int, minute: Int), calendar: Calendar)
        throws(Problem) -> Date
    {
        let parts = DateComponents(year: day.year, month: day.month, day: day.day, hour: time.hour, minute: time.minute)
        guard let moment = calendar.date(from: parts), ISODate.holds(moment) else { throw .outsideYears }
        return moment
    }
}
