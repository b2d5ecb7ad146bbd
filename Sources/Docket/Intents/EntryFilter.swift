import DocketModel
import Foundation

/// Which todos (or tasks) a listing shows. Due conditions are alternatives
/// (overdue or due today); every other condition must hold as well.
public struct EntryFilter: Sendable, Equatable {
    /// Open, done, or both.
    public enum Status: Sendable, Equatable { case open, done, all }
    /// What to do with the open items that wait until a later date (`Entry.isWaiting(at:)`).
    public enum Waiting: Sendable, Equatable {
        /// Leave them out: they are not to be done yet.
        case hidden
        /// Show them with the others.
        case shown
        /// Show only them.
        case only
    }

    /// Which ones by status; open ones unless asked.
    public var status: Status = .open
    /// Whether items that wait until a later date are shown; not unless asked.
    public var waiting: Waiting = .hidden
    /// Overdue (and open): due on a day that has ended, or at a time gone by.
    public var overdue = false
    /// Due today.
    public var dueToday = false
    /// Due from today to the end of this week (Sunday).
    public var dueThisWeek = false
    /// Due before this date.
    public var dueBefore: Date?
    /// Words that must all appear in the text, in any case.
    public var words: [String] = []
    /// Done on or after this date (by its completion date; for items done before there were
    /// completion dates, by its last change).
    public var doneSince: Date?
    /// Tags it must all have.
    public var tags: [String] = []
    /// At most this many.
    public var limit: Int?

    /// Open ones, all of them, in list order: set the conditions wanted.
    public init() {}

    /// Whether any due condition is set.
    var hasDueCondition: Bool { overdue || dueToday || dueThisWeek || dueBefore != nil }

    /// Today's bounds, worked out once per listing: calendar arithmetic is
    /// slow, and a listing of 100,000 todos would repeat it for each.
    struct Days {
        let now: Date, calendar: Calendar, today: CalendarDay, endOfWeek: CalendarDay

        init(now: Date, calendar: Calendar) {
            self.now = now
            self.calendar = calendar
            today = CalendarDay(now, in: calendar.timeZone)
            // The week ends on Sunday night, whatever day the calendar starts its weeks on.
            endOfWeek = today.adding(days: today.weekday == 0 ? 1 : 8 - today.weekday)
        }
    }

    /// Whether `entry` is shown at `now`.
    public func admits(_ entry: Entry, now: Date, calendar: Calendar = DocketClock.calendar) -> Bool {
        admits(
            entry, now: now, zone: calendar.timeZone, days: hasDueCondition ? Days(now: now, calendar: calendar) : nil)
    }

    func admits(_ entry: Entry, now: Date, zone: TimeZone, days: Days?) -> Bool {
        switch status {
        case .open where entry.isDone, .done where !entry.isDone: return false
        default: break
        }
        switch waiting {
        case .hidden where entry.isWaiting(at: now, zone: zone), .only where !entry.isWaiting(at: now, zone: zone):
            return false
        default: break
        }
        if let days {
            let due = entry.due
            guard let day = due.day(in: days.calendar.timeZone), let moment = due.date else { return false }
            let matches =
                (overdue && !entry.isDone && due.isOverdue(at: days.now, calendar: days.calendar))
                || (dueToday && day == days.today)
                || (dueThisWeek && day >= days.today && day < days.endOfWeek)
                || (dueBefore.map { moment < $0 } ?? false)
            if !matches { return false }
        }
        if !words.isEmpty {
            let text = entry.text
            if !words.allSatisfy({ text.range(of: $0, options: [.caseInsensitive, .diacriticInsensitive]) != nil }) {
                return false
            }
        }
        if !tags.isEmpty {
            let has = entry.tags
            if !tags.allSatisfy(has.contains) { return false }
        }
        if let doneSince {
            guard entry.isDone else { return false }
            // NB: items done before store format 2 have no completion date; their last change stands in.
            let doneAt: Date? =
                switch entry {
                case let .todo(todo): todo.completedDate ?? todo.alterDate
                case let .task(task, _): task.completedDate ?? task.alterDate
                }
            guard let doneAt, doneAt >= doneSince else { return false }
        }
        return true
    }

    /// The entries shown, in the order a person reads a list: by due date
    /// (so overdue first), then undated ones oldest first; cut at `limit`.
    public func apply(to entries: [Entry], now: Date, calendar: Calendar = DocketClock.calendar) -> [Entry] {
        let days = hasDueCondition ? Days(now: now, calendar: calendar) : nil
        let shown = Entry.inListOrder(entries.filter { admits($0, now: now, zone: calendar.timeZone, days: days) })
        return limit.map { Array(shown.prefix($0)) } ?? shown
    }
}

extension Entry {
    /// What list order compares, taken out of the entry once.
    private struct OrderKey {
        let due: Double, priority: Int, made: Double, id: UUID

        init(_ entry: Entry) {
            due = entry.dueDate?.timeIntervalSinceReferenceDate ?? .infinity
            priority = Priority.rank(entry.priority)
            made = entry.madeAt.timeIntervalSinceReferenceDate
            id = entry.id
        }

        func precedes(_ other: OrderKey) -> Bool {
            if due != other.due { return due < other.due }
            if priority != other.priority { return priority < other.priority }
            if made != other.made { return made < other.made }
            return id.precedes(other.id)
        }
    }

    /// `entries` in list order: dated before undated, earlier due first; at
    /// equal due, higher priority first; then oldest first; then by id, so the order is total. NB: the keys are taken
    /// out once and their
    /// indices sorted; comparing entries themselves copies each item out of
    /// the enum twice per comparison, a third of listing 100,000 todos.
    static func inListOrder(_ entries: [Entry]) -> [Entry] {
        let keys = entries.map(OrderKey.init)
        return keys.indices.sorted { keys[$0].precedes(keys[$1]) }.map { entries[$0] }
    }
}
