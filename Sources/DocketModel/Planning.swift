import Foundation

/// When a todo or task may be started, and what it waits on: its wait date, its scheduled date and the items it
/// depends on. Kept together, boxed, in the item: most items have none of them, and lists hold 100,000 todos.
struct Planning: Hashable, Sendable {
    var waitDate: Date?
    var scheduledDate: Date?
    var dependencies: [UUID]

    /// The box an item keeps: nil while every part is empty.
    static func box(wait: Date?, scheduled: Date?, dependencies: [UUID]) -> Box<Planning>? {
        wait == nil && scheduled == nil && dependencies.isEmpty
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
    /// `date` moved by as many days as an instance due at `due` is from the next, due at `next`, at the same time of
    /// day: a wait or scheduled date keeps its distance from the due date in the next instance. Nil when there is no
    /// date, or when the moved one is past what a file can hold.
    static func carried(_ date: Date?, from due: Date, to next: Date, calendar: Calendar) -> Date? {
        guard let date,
            let days = calendar.dateComponents(
                [.day], from: calendar.startOfDay(for: due), to: calendar.startOfDay(for: next)
            ).day,
            let moved = calendar.date(byAdding: .day, value: days, to: date), ISODate.holds(moved)
        else { return nil }
        return moved
    }
}
