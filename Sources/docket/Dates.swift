import ArgumentParser
import Foundation

/// The dates a person types: today, tomorrow, a weekday, +3d, +2w, 2026-12-24, 2026-12-24T18:30 (local time).
enum DateInput {
    static let forms = "today, tomorrow, a weekday (monday … sunday), +3d, +2w, YYYY-MM-DD or YYYY-MM-DDTHH:MM"

    /// The date of a text, or a usage error listing the accepted forms.
    static func parse(_ text: String, now: Date = Date(), calendar: Calendar = .current) throws -> Date {
        guard let date = date(text, now: now, calendar: calendar) else {
            throw ValidationError("'\(text)' is not a date; use \(forms)")
        }
        return date
    }

    /// `none` clears a date; anything else is parsed.
    static func parseOptional(_ text: String) throws -> Date? {
        text.lowercased() == "none" ? nil : try parse(text)
    }

    static func date(_ text: String, now: Date, calendar: Calendar) -> Date? {
        let word = text.lowercased()
        let today = calendar.startOfDay(for: now)
        // NB: a date without a time is due at noon, local time, so it stays the same day when the time zone shifts a little.
        func noon(_ day: Date) -> Date? { calendar.date(byAdding: .hour, value: 12, to: day) }
        switch word {
        case "today": return noon(today)
        case "tomorrow": return calendar.date(byAdding: .day, value: 1, to: today).flatMap(noon)
        default: break
        }
        let weekdays = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
        if let index = weekdays.firstIndex(where: { $0 == word || ($0.hasPrefix(word) && word.count >= 3) }) {
            let current = calendar.component(.weekday, from: today) - 1
            var ahead = (index - current + 7) % 7
            if ahead == 0 { ahead = 7 }
            return calendar.date(byAdding: .day, value: ahead, to: today).flatMap(noon)
        }
        if word.hasPrefix("+"), let unit = word.last, let count = Int(word.dropFirst().dropLast()), count >= 0 {
            switch unit {
            case "d": return calendar.date(byAdding: .day, value: count, to: today).flatMap(noon)
            case "w": return calendar.date(byAdding: .day, value: 7 * count, to: today).flatMap(noon)
            default: return nil
            }
        }
        let parts = word.split(separator: "t", maxSplits: 1).map(String.init)
        let ymd = parts[0].split(separator: "-").compactMap { Int($0) }
        guard ymd.count == 3, parts[0].count == 10 else { return nil }
        var components = DateComponents(year: ymd[0], month: ymd[1], day: ymd[2])
        if parts.count == 2 {
            let hm = parts[1].split(separator: ":").compactMap { Int($0) }
            guard hm.count == 2, parts[1].count == 5, (0..<24).contains(hm[0]), (0..<60).contains(hm[1]) else { return nil }
            components.hour = hm[0]
            components.minute = hm[1]
        } else {
            components.hour = 12
        }
        guard let date = calendar.date(from: components),
              calendar.component(.day, from: date) == ymd[2], calendar.component(.month, from: date) == ymd[1]
        else { return nil }
        return date
    }

    /// "due today", "due tomorrow", "due in 3 days", "overdue 2 days".
    static func relative(_ due: Date, now: Date = Date(), calendar: Calendar = .current) -> String {
        let days = calendar.dateComponents([.day], from: calendar.startOfDay(for: now), to: calendar.startOfDay(for: due)).day ?? 0
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
