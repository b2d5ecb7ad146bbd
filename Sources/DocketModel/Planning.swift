import Foundation

/// When a todo or task may be started, and what it waits on: its wait date, its scheduled date and the items it
/// depends on. Kept together, boxed, in the item: most items have none of them, and lists hold 100,000 todos.
struct Planning: Hashable, Sendable {
    var waitDate: DueDate
    var scheduledDate: DueDate
    var dependencies: [UUID]

    /// The box an item keeps: nil while every part is empty.
    static func box(wait: DueDate, scheduled: DueDate, dependencies: [UUID]) -> Box<Planning>? {
        wait == .unknown && scheduled == .unknown && dependencies.isEmpty
            ? nil : Box(Planning(waitDate: wait, scheduledDate: scheduled, dependencies: dependencies))
    }
}

/// The ids an item depends on, as they are stored: sorted as the files write them (upper case), each once.
public enum Dependencies {
    /// `ids` sorted, each once.
    public static func normalized<S: Sequence>(_ ids: S) -> [UUID] where S.Element == UUID {
        [UUID].fromElementTexts(Set(ids.map(\.elementText)))
    }

    /// `ids` after adding `add` and removing `remove`.
    public static func applying(add: [UUID], remove: [UUID], to ids: [UUID]) -> [UUID] {
        normalized(Set(ids).union(add).subtracting(remove))
    }
}

extension Recurrence {
    /// `date` moved by as many days as the next instance's due day (`next`) is from this one's (`due`, or the day it
    /// was done when it has none): a wait or scheduled date keeps its distance from the due date in the next instance,
    /// a day as a day and a time at its time of day (in `calendar`, across a daylight-saving change too). Unknown when
    /// there is no date, or when the moved one is past what a file can hold.
    static func carried(_ date: DueDate, from due: DueDate, done: Date, to next: DueDate, calendar: Calendar)
        -> DueDate
    {
        let zone = calendar.timeZone
        let from = due.day(in: zone) ?? CalendarDay(done, in: zone)
        guard let to = next.day(in: zone) else { return .unknown }
        let days = Int(to.daysSince1970 - from.daysSince1970)
        switch date {
        case .unknown: return .unknown
        case let .day(day): return .day(day.adding(days: days))
        case let .date(moment):
            guard let moved = calendar.date(byAdding: .day, value: days, to: moment), ISODate.holds(moved) else {
                return .unknown
            }
            return .date(moved)
        }
    }
}
