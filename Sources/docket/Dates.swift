import ArgumentParser
import Docket
import Foundation

/// The dates a person types, in the local time zone: words (today, tomorrow,
/// yesterday, a weekday, next week, eow…), offsets (+3d, -1w, +1m, +1y) and
/// ISO dates (2026-12-24, 2026-12-24T18:30, 2026-12-24 18:30). A date without a
/// time is noon that day. Only dates a Docket file can hold (years 1 to 9999) are taken.
enum DateInput {
    static let forms =
        "today, tomorrow, yesterday, a weekday, next week, eow, eom, eoy, +3d, -1d, +2w, +1m, +1y, YYYY-MM-DD or YYYY-MM-DD HH:MM"

    /// The date of a text, or a usage error naming what is wrong. For a
    /// filter (`since`), a weekday is its last occurrence (today included) and
    /// a day without a time starts at midnight rather than noon.
    static func parse(_ text: String, now: Date = Date(), calendar: Calendar = .current, since: Bool = false) throws
        -> Date
    {
        let offset =
            text.range(of: #"^\s*[+-][0-9]+[dwmy]\s*$"#, options: [.regularExpression, .caseInsensitive]) != nil
        guard var date = date(text, now: now, calendar: calendar, past: since) else {
            if offset { throw ValidationError("'\(Output.safe(text))' is outside the years 1 to 9999 a date can have") }
            throw ValidationError("'\(Output.safe(text))' is not a date; use \(forms)")
        }
        guard DocketJSON.canHold(date) else {
            throw ValidationError("'\(Output.safe(text))' is outside the years 1 to 9999 a date can have")
        }
        if since, !text.contains(":") { date = calendar.startOfDay(for: date) }
        return date
    }

    /// A day for a filter such as `--before friday`: its start (midnight), or the exact time when one is given.
    static func parseDay(_ text: String) throws -> Date {
        let date = try parse(text)
        return text.contains(":") ? date : Calendar.current.startOfDay(for: date)
    }

    /// `none` or nothing at all clears a date; anything else is parsed.
    static func parseOptional(_ text: String) throws -> Date? {
        let word = text.trimmingCharacters(in: .whitespaces).lowercased()
        return word == "none" || word.isEmpty ? nil : try parse(text)
    }

    static func date(_ text: String, now: Date, calendar: Calendar, past: Bool = false) -> Date? {
        let word = text.trimmingCharacters(in: .whitespaces).lowercased()
        let today = calendar.startOfDay(for: now)
        // NB: a date without a time is due at noon, local time, so it stays the same day when the time zone shifts a
        // little.
        func noon(_ day: Date?) -> Date? { day.flatMap { calendar.date(byAdding: .hour, value: 12, to: $0) } }
        func days(_ count: Int) -> Date? { noon(calendar.date(byAdding: .day, value: count, to: today)) }
        let weekday = calendar.component(.weekday, from: today) - 1 // 0 is Sunday
        switch word {
        case "today", "eod": return days(0)
        case "tomorrow": return days(1)
        case "yesterday": return days(-1)
        case "eow": return days((7 - weekday) % 7) // the coming Sunday, today on a Sunday
        case "next week": return days((8 - weekday) % 7 == 0 ? 7 : (8 - weekday) % 7) // next Monday
        case "eom":
            let month = calendar.dateInterval(of: .month, for: today)
            return noon(month.flatMap { calendar.date(byAdding: .day, value: -1, to: $0.end) })
        case "next month": return noon(calendar.dateInterval(of: .month, for: today)?.end)
        case "eoy":
            let year = calendar.dateInterval(of: .year, for: today)
            return noon(year.flatMap { calendar.date(byAdding: .day, value: -1, to: $0.end) })
        default: break
        }
        let names = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
        let name = word.hasPrefix("next ") ? String(word.dropFirst(5)) : word
        if let index = names.firstIndex(where: { $0 == name || ($0.hasPrefix(name) && name.count >= 3) }) {
            if past { return days(-((weekday - index + 7) % 7)) }
            let ahead = (index - weekday + 7) % 7
            return days(ahead == 0 ? 7 : ahead)
        }
        if let first = word.first, first == "+" || first == "-", let unit = word.last, word.count >= 3,
            let magnitude = Int(word.dropFirst().dropLast()), magnitude <= 4_000_000
        {
            let count = first == "-" ? -magnitude : magnitude
            switch unit {
            case "d": return days(count)
            case "w": return days(7 * count)
            case "m": return magnitude > 120_000 ? nil : noon(calendar.date(byAdding: .month, value: count, to: today))
            case "y": return magnitude > 10_000 ? nil : noon(calendar.date(byAdding: .year, value: count, to: today))
            default: return nil
            }
        }
        return isoDate(word, today: today, calendar: calendar)
    }

    /// `YYYY-MM-DD`, with `THH:MM` or ` HH:MM` after it, or `HH:MM` alone (today).
    private static func isoDate(_ word: String, today: Date, calendar: Calendar) -> Date? {
        let parts = word.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "t" || $0 == " " }).map(
            String.init)
        guard !parts.isEmpty, parts.count <= 2 else { return nil }
        var components: DateComponents
        var timePart: String?
        if parts[0].count == 10 {
            let ymd = parts[0].split(separator: "-", omittingEmptySubsequences: false)
            guard ymd.count == 3, ymd[0].count == 4, ymd[1].count == 2, ymd[2].count == 2,
                let year = Int(ymd[0]), let month = Int(ymd[1]), let day = Int(ymd[2]), year >= 1
            else { return nil }
            components = DateComponents(year: year, month: month, day: day)
            timePart = parts.count == 2 ? parts[1] : nil
        } else if parts.count == 1, parts[0].count == 5 {
            components = calendar.dateComponents([.year, .month, .day], from: today)
            timePart = parts[0]
        } else {
            return nil
        }
        if let timePart {
            let hm = timePart.split(separator: ":", omittingEmptySubsequences: false)
            guard hm.count == 2, timePart.count == 5, let hour = Int(hm[0]), let minute = Int(hm[1]),
                (0..<24).contains(hour), (0..<60).contains(minute)
            else { return nil }
            components.hour = hour
            components.minute = minute
        } else {
            components.hour = 12
        }
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == components.day,
            calendar.component(.month, from: date) == components.month
        else { return nil }
        return date
    }

    /// "due today", "due tomorrow", "due in 3 days", "overdue 2 days".
    static func relative(_ due: Date, now: Date = Date(), calendar: Calendar = .current) -> String {
        let days =
            calendar.dateComponents([.day], from: calendar.startOfDay(for: now), to: calendar.startOfDay(for: due)).day
            ?? 0
        switch days {
        case 0: return "due today"
        case 1: return "due tomorrow"
        case 2...: return "due in \(days) days"
        case -1: return "overdue 1 day"
        default: return "overdue \(-days) days"
        }
    }

    /// A date for people: 2026-12-24 18:30, local time.
    static func show(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}

/// A due date as typed: a date, or `none` (or nothing) to clear it. As an
/// option's type it keeps "not given" (nil) apart from "cleared" (`.none`).
enum DueInput {
    /// Clear the due date.
    case none
    /// Set it to this date.
    case date(Date)

    /// The typed text, or a usage error.
    static func parse(_ text: String) throws -> DueInput {
        try DateInput.parseOptional(text).map(DueInput.date) ?? .none
    }

    /// The date, or nil to clear.
    var date: Date? {
        if case let .date(date) = self { return date }
        return nil
    }
}
