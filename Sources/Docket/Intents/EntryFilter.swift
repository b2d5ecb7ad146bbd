import DocketModel
import Foundation

/// Which todos (or tasks) a listing shows, and in what order. The due
/// windows (overdue, today, this week) are alternatives (overdue or due
/// today); every other condition must hold as well. Two filters make one
/// with `and`, as a saved filter (a context) narrows what is typed.
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
    /// Which items by what blocks them (`Blocking`).
    public enum Readiness: Sendable, Equatable {
        /// Any.
        case any
        /// Only those blocked by an item they depend on that is not done yet.
        case blocked
        /// Only those ready to be done: open, not waiting, not blocked (Taskwarrior's READY).
        case ready
    }

    /// Which ones by status; open ones unless asked.
    public var status: Status = .open
    /// Whether items that wait until a later date are shown; not unless asked.
    public var waiting: Waiting = .hidden
    /// Which ones by what blocks them; any unless asked.
    public var readiness: Readiness = .any
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
    /// Further due windows, each of which must hold too: set by `and` when both filters have one.
    /// NB: the windows overlap (a time earlier today is overdue and due today), so the windows two filters both
    /// allow cannot be said as one set of alternatives.
    private var alsoDue: [DueWindows] = []

    /// A set of due windows, any one of which will do.
    struct DueWindows: Sendable, Equatable {
        var overdue: Bool, today: Bool, thisWeek: Bool
    }

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

    /// Whether `entry` is shown at `now`, with `blocking` saying which items block which (for `readiness`).
    public func admits(
        _ entry: Entry, now: Date, calendar: Calendar = DocketClock.calendar, blocking: Blocking = Blocking()
    ) -> Bool {
        admits(entry, days: Days(now: now, calendar: calendar), blocking: blocking)
    }

    // NB: one `if` per condition; a new condition is a property, a line here and a line in `and`.
    func admits(_ entry: Entry, days: Days, blocking: Blocking) -> Bool {
        if contradictory { return false }
        switch status {
        case .open where entry.isDone, .done where !entry.isDone: return false
        default: break
        }
        let waits = entry.isWaiting(at: days.now, zone: days.calendar.timeZone)
        switch waiting {
        case .hidden where waits, .only where !waits: return false
        default: break
        }
        switch readiness {
        case .blocked where !blocking.isBlocked(entry), .ready where !blocking.isReady(entry, at: days.now):
            return false
        default: break
        }
        if hasDueWindow || !alsoDue.isEmpty {
            let due = entry.due
            guard let day = due.day(in: days.calendar.timeZone) else { return false }
            let overdue = !entry.isDone && due.isOverdue(at: days.now, calendar: days.calendar)
            let today = day == days.today
            let thisWeek = day >= days.today && day < days.endOfWeek
            for windows in [DueWindows(overdue: self.overdue, today: dueToday, thisWeek: dueThisWeek)] + alsoDue
            where windows.overdue || windows.today || windows.thisWeek {
                if !((windows.overdue && overdue) || (windows.today && today) || (windows.thisWeek && thisWeek)) {
                    return false
                }
            }
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

    /// The entries shown, in `order`; cut at `limit`. `blocking` says which items block which (for `readiness`).
    public func apply(
        to entries: [Entry], now: Date, calendar: Calendar = DocketClock.calendar, blocking: Blocking = Blocking()
    ) -> [Entry] {
        let days = Days(now: now, calendar: calendar)
        let shown = order.sorted(entries.filter { admits($0, days: days, blocking: blocking) })
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
        switch (waiting, other.waiting) {
        case (.shown, _): both.waiting = other.waiting
        case (_, .shown), (.hidden, .hidden), (.only, .only): break
        case (.hidden, .only), (.only, .hidden): both.contradictory = true
        }
        switch (readiness, other.readiness) {
        case (.any, _): both.readiness = other.readiness
        case (_, .any), (.blocked, .blocked), (.ready, .ready): break
        case (.blocked, .ready), (.ready, .blocked): both.contradictory = true
        }
        if other.hasDueWindow {
            if hasDueWindow {
                both.alsoDue.append(
                    DueWindows(overdue: other.overdue, today: other.dueToday, thisWeek: other.dueThisWeek))
            } else {
                (both.overdue, both.dueToday, both.dueThisWeek) = (other.overdue, other.dueToday, other.dueThisWeek)
            }
        }
        both.alsoDue += other.alsoDue
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
