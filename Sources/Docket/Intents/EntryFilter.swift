import DocketModel
import Foundation

/// Which todos (or tasks) a listing shows, and in what order. The due
/// windows (overdue, today, this week) are alternatives (overdue or due
/// today); every other condition must hold as well. Two filters make one
/// with `and`, as a saved filter (a context) narrows what is typed.
public struct EntryFilter: Sendable, Equatable {
    /// Open, done, or both.
    public enum Status: Sendable, Equatable { case open, done, all }

    /// Which ones by status; open ones unless asked.
    public var status: Status = .open
    /// Overdue (and open): due on a day that has ended, or at a time gone by.
    public var overdue = false
    /// Due today.
    public var dueToday = false
    /// Due from today to the end of this week (Sunday).
    public var dueThisWeek = false
    /// Due before this date: the end of a due range (with `dueFrom`, both must hold).
    public var dueBefore: Date?
    /// Due at this date or later: the start of a due range.
    public var dueFrom: Date?
    /// Words that must all appear in the text, in any case.
    public var words: [String] = []
    /// Done on or after this date (by its completion date; for items done before there were
    /// completion dates, by its last change).
    public var doneSince: Date?
    /// Tags it must all have. A tag no item has is no error: nothing has it.
    public var tags: [String] = []
    /// Tags it must have none of.
    public var excludedTags: [String] = []
    /// One of these priorities (nil in the set: no priority); nil for any.
    public var priorities: Set<Priority?>?
    /// Tasks of one of these projects (no todo has a project); nil for any entry. `Store.entries`
    /// lists these projects' tasks instead of the todos.
    public var projects: Set<UUID>?
    /// The order the entries are shown in.
    public var order = EntryOrder.list
    /// At most this many.
    public var limit: Int?
    /// Set by `and` when the two filters cannot both hold (open and done ones, overdue and due today).
    private var contradictory = false

    /// Open ones, all of them, in list order: set the conditions wanted.
    public init() {}

    /// Whether any due window is set.
    var hasDueWindow: Bool { overdue || dueToday || dueThisWeek }

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
        admits(entry, days: hasDueWindow ? Days(now: now, calendar: calendar) : nil)
    }

    // NB: one `if` per condition; a new condition (a wait, a dependency) is a property, a line here and a line in `and`.
    func admits(_ entry: Entry, days: Days?) -> Bool {
        if contradictory { return false }
        switch status {
        case .open where entry.isDone, .done where !entry.isDone: return false
        default: break
        }
        if hasDueWindow, let days {
            let due = entry.due
            guard let day = due.day(in: days.calendar.timeZone) else { return false }
            let matches =
                (overdue && !entry.isDone && due.isOverdue(at: days.now, calendar: days.calendar))
                || (dueToday && day == days.today)
                || (dueThisWeek && day >= days.today && day < days.endOfWeek)
            if !matches { return false }
        }
        if dueBefore != nil || dueFrom != nil {
            guard let due = entry.dueDate else { return false }
            if let dueBefore, due >= dueBefore { return false }
            if let dueFrom, due < dueFrom { return false }
        }
        if !words.isEmpty {
            let text = entry.text
            if !words.allSatisfy({ text.range(of: $0, options: [.caseInsensitive, .diacriticInsensitive]) != nil }) {
                return false
            }
        }
        if !tags.isEmpty || !excludedTags.isEmpty {
            let has = entry.tags
            if !tags.allSatisfy(has.contains) || excludedTags.contains(where: has.contains) { return false }
        }
        if let priorities, !priorities.contains(entry.priority) { return false }
        if let projects {
            guard case let .task(_, project) = entry, projects.contains(project.id) else { return false }
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

    /// The entries shown, in `order`; cut at `limit`.
    public func apply(to entries: [Entry], now: Date, calendar: Calendar = DocketClock.calendar) -> [Entry] {
        let days = hasDueWindow ? Days(now: now, calendar: calendar) : nil
        let shown = order.sorted(entries.filter { admits($0, days: days) })
        return limit.map { Array(shown.prefix($0)) } ?? shown
    }

    /// The filter that admits what both admit: a saved filter (a context) and what is typed.
    /// The order is this one's, or `other`'s where this one keeps list order; the limit the smaller.
    public func and(_ other: EntryFilter) -> EntryFilter {
        var both = self
        both.contradictory = contradictory || other.contradictory
        switch (status, other.status) {
        case (.all, _): both.status = other.status
        case (_, .all), (.open, .open), (.done, .done): break
        case (.open, .done), (.done, .open): both.contradictory = true
        }
        if other.hasDueWindow {
            if hasDueWindow {
                // NB: due today lies within this week and apart from overdue, so the windows both allow are those
                // in both, and today where one says today and the other this week.
                both.overdue = overdue && other.overdue
                both.dueToday =
                    (dueToday && (other.dueToday || other.dueThisWeek)) || (dueThisWeek && other.dueToday)
                both.dueThisWeek = dueThisWeek && other.dueThisWeek
                if !both.hasDueWindow { both.contradictory = true }
            } else {
                (both.overdue, both.dueToday, both.dueThisWeek) = (other.overdue, other.dueToday, other.dueThisWeek)
            }
        }
        both.dueBefore = [dueBefore, other.dueBefore].compactMap { $0 }.min()
        both.dueFrom = [dueFrom, other.dueFrom].compactMap { $0 }.max()
        both.doneSince = [doneSince, other.doneSince].compactMap { $0 }.max()
        both.words = words + other.words
        both.tags = Tags.normalized(tags + other.tags)
        both.excludedTags = Tags.normalized(excludedTags + other.excludedTags)
        both.priorities = Self.both(priorities, other.priorities)
        both.projects = Self.both(projects, other.projects)
        if both.order == .list { both.order = other.order }
        both.limit = [limit, other.limit].compactMap { $0 }.min()
        return both
    }

    /// What two "one of these" conditions both allow; nil (any) gives way to the other.
    private static func both<T>(_ a: Set<T>?, _ b: Set<T>?) -> Set<T>? {
        guard let a else { return b }
        guard let b else { return a }
        return a.intersection(b)
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
