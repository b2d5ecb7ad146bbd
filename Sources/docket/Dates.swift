import ArgumentParser
import Docket
import Foundation

/// The dates a person types (read by `DatePhrase`, in the local time zone), and dates as a person reads them.
enum DateInput {
    /// What a date can be, for help and messages.
    static let forms = DatePhrase.forms

    /// The due date of a text, or a usage error naming what is wrong and listing what is accepted.
    static func due(_ text: String, now: Date = DocketClock.now, past: Bool = false, thisWeek: Bool = false) throws
        -> DueDate
    {
        do {
            return try DatePhrase.read(text, now: now, past: past, thisWeek: thisWeek)
        } catch .outsideYears {
            throw ValidationError("'\(Output.safe(text))' is outside the years 1 to 9999 a date can have")
        } catch {
            throw ValidationError("'\(Output.safe(text))' is not a date; use \(forms)")
        }
    }

    /// A moment for a due filter such as `--before friday`: a day's start (midnight), or the time given; a weekday is
    /// that day of this week (Monday to Sunday), so `--due-after monday --due-before saturday` is this week's.
    static func parseDay(_ text: String) throws -> Date { start(try due(text, thisWeek: true)) }

    /// A moment for a filter that looks back (`--done-since monday`, `report --since`): a weekday is its last
    /// occurrence, today included, and a day starts at midnight.
    static func parseSince(_ text: String) throws -> Date { start(try due(text, past: true)) }

    /// The end of what a text names, for `report --until`: the end of a day (it counts whole), or the time given.
    static func parseUntil(_ text: String) throws -> Date {
        let due = try self.due(text, past: true)
        guard let day = due.day else { return due.date! }
        return day.adding(days: 1).start(in: DocketClock.timeZone)
    }

    private static func start(_ due: DueDate) -> Date {
        due.day?.start(in: DocketClock.timeZone) ?? due.date!
    }

    /// "due today", "due tomorrow 09:00", "due fri 14:00", "due in 3 days", "overdue 2 days", "overdue since 09:00";
    /// for a done item, never overdue: "was due 2026-11-20".
    static func relative(_ due: DueDate, now: Date = DocketClock.now, done: Bool = false) -> String {
        let zone = DocketClock.timeZone
        guard let day = due.day(in: zone) else { return "no due date" }
        let days = Int(day.daysSince1970 - CalendarDay(now, in: zone).daysSince1970)
        // NB: worked out only where the text shows it: `String(format:)` was a sixth of `list --all`'s instructions.
        var time: String { due.date.map { clock($0, zone: zone) } ?? "" }
        if due.isOverdue(at: now) {
            if done { return "was due \(show(due))" }
            switch days {
            case 0: return "overdue since \(time)"
            case -1: return "overdue 1 day"
            default: return "overdue \(-days) days"
            }
        }
        guard due.hasTime else {
            switch days {
            case 0: return "due today"
            case 1: return "due tomorrow"
            default: return "due in \(days) days"
            }
        }
        switch days {
        case 0: return "due today \(time)"
        case 1: return "due tomorrow \(time)"
        case 2...6: return "due \(weekdays[day.weekday]) \(time)"
        default: return "due in \(days) days at \(time)"
        }
    }

    private static let weekdays = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    /// The local time of day of a date: 09:05.
    static func clock(_ date: Date, zone: TimeZone = DocketClock.timeZone) -> String {
        let seconds = Int((date.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: date))).rounded(.down))
        let minutes = ((seconds / 60) % 1440 + 1440) % 1440
        return String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }

    /// A moment for people: 2026-12-24 18:30; a day alone for noon to the millisecond, the time Docket keeps for a
    /// date read without one (a todo.txt line's creation and completion dates).
    static func show(_ date: Date) -> String {
        let day = CalendarDay(date, in: DocketClock.timeZone)
        let isNoon = day.noon(in: DocketClock.timeZone).timeIntervalSince1970 == date.timeIntervalSince1970
        return isNoon ? day.description : ShownDate.string(date)
    }

    /// A due date for people, as it is typed back: 2026-12-24 for a day, 2026-12-24 18:30 for a time, none.
    static func show(_ due: DueDate) -> String {
        switch due {
        case .unknown: "none"
        case let .day(day): day.description
        case let .date(date): show(date)
        }
    }
}

/// A due date as typed: a date, or `none` (or nothing) to clear it. As an
/// option's type it keeps "not given" (nil) apart from "cleared" (`.none`).
enum DueInput {
    /// Clear the due date.
    case none
    /// Set it: a day, or a day and a time.
    case date(DueDate)

    /// The typed text, or a usage error. A time the clocks skip that day (daylight saving) is taken as the time
    /// after the gap, as the calendar does, and said on stderr.
    static func parse(_ text: String) throws -> DueInput { try read(text, noting: true) }

    /// The typed text, or a usage error, said nothing of: for a check before the same text is parsed again.
    static func check(_ text: String) throws { _ = try read(text, noting: false) }

    private static func read(_ text: String, noting: Bool) throws -> DueInput {
        let word = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard word != "none", !word.isEmpty else { return .none }
        let due = try DateInput.due(text)
        if noting, let (asked, given) = DatePhrase.skippedTime(text, reading: due) {
            Output.notice(
                "\(asked) does not exist on \(due.day(in: DocketClock.timeZone)?.description ?? "that day") in "
                    + "\(DocketClock.timeZone.identifier): the clocks skip it; taken as \(given)")
        }
        return .date(due)
    }

    /// The due date; `.unknown` to clear it.
    var due: DueDate {
        if case let .date(due) = self { return due }
        return .unknown
    }
}

/// A date typed as words after an id, quotes optional (`docket due 3f2a next week`), or none: `due`, `wait`,
/// `schedule` and `task due` take it.
struct DateArgument: ParsableArguments {
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("The date, or none.", valueName: "date|none"))
    var words: [String] = []

    /// The date the words name; `.unknown` for none.
    var date: DueDate { get throws { try DueInput.parse(words.joined(separator: " ")).due } }

    func validate() throws {
        if words.isEmpty { throw ValidationError("give a date, or none") }
        try DueInput.check(words.joined(separator: " "))
    }
}
