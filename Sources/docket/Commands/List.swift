import ArgumentParser
import Docket
import Foundation

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the todos (open ones by default), overdue first, then by due date.",
        discussion: """
            Words given are searched for in the text (all of them, in any case); \
            +tag keeps those with the tag, -tag those without it (no '--' needed; \
            after '--' a one-letter tag, where -x would be an option, or one starting \
            with C, as -C<dir> names the store). Items that wait until a later date \
            ('docket wait') are left out unless --waiting or --all is given; --blocked \
            lists those an unfinished dependency blocks, --ready those ready to be done. \
            --overdue, --today and --week are alternatives (--overdue --today: either); \
            every other filter must hold too. --project lists that project's tasks instead \
            of the todos (a todo belongs to no project).

            --sort takes due, priority, created, modified or text, joined by commas, the first \
            deciding first: due is earliest first, priority high first, created and modified \
            oldest first, text A to Z; - before a key reverses it (-modified: latest first). \
            Items without a due date or a priority come last either way, and ties keep list \
            order: by due date, then priority, then oldest first.

            The context switched on ('docket context') narrows the list too, and the list \
            says so; --no-context or --all lists without it.

            --json prints an array of the items as in their files: a todo has id, text, \
            completed, creationDate, dueDate, alterDate (dates ISO-8601 UTC, null when unset; \
            a dueDate is YYYY-MM-DD without a time, else ISO-8601 with its local offset), \
            and when set tags, priority, notes, completedDate, recurrence, waitDate and scheduledDate \
            (each as a dueDate) and dependencies (ids); \
            with --project, tasks, each with its project.

            Examples:
              docket list --overdue --today
              docket list milk --all
              docket list +work -someday --priority high,medium
              docket list --due-after monday --due-before saturday --sort priority
              docket list --project Party --sort -modified
              docket list --done-since monday
              docket list --waiting
              docket list --ready --sort priority
            """)

    @OptionGroup var store: StoreOptions
    @OptionGroup var filtering: FilterOptions
    @Flag(help: "Also list completed todos, and without the context.") var all = false
    @Flag(help: "List only completed todos.") var done = false
    @Flag(help: "List only the todos that wait until a later date (left out otherwise; --all shows them too).")
    var waiting = false
    @Flag(help: "Only overdue ones: due on a day that has ended, or at a time gone by.") var overdue = false
    @Flag(help: "Only those due today.") var today = false
    @Flag(help: "Only those due from today to the end of this week (Sunday).") var week = false
    @Option(
        name: .customLong("done-since"), parsing: .unconditional,
        help: ArgumentHelp("Only those done since this date.", valueName: "date"),
        transform: DateInput.parseSince)
    var doneSince: Date?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Sort by due, priority, created, modified or text; several joined by commas; - before one reverses it.",
            valueName: "keys"),
        transform: SortInput.parse)
    var sort: EntryOrder?
    @Flag(name: .customLong("no-context"), help: "List without the context switched on.") var noContext = false
    @Option(
        name: [.customShort("n"), .customLong("limit")], help: ArgumentHelp("At most this many.", valueName: "count"))
    var limit: Int?
    @Flag(help: "Print JSON for scripts.") var json = false

    func validate() throws {
        if all && done { throw ValidationError("--all and --done cannot be used together") }
        if waiting && done {
            throw ValidationError("--waiting and --done cannot be used together: done todos wait for nothing")
        }
        if let limit, limit < 1 {
            throw ValidationError("-n (--limit) must be 1 or more; leave it out to list every one")
        }
        _ = try filtering.words(command: List.self)
    }

    func run() throws {
        let store = try self.store.open()
        var filter = try filtering.filter(in: store, command: List.self)
        filter.status = all ? .all : (done || doneSince != nil ? .done : .open)
        filter.waiting = waiting ? .only : all ? .shown : .hidden
        filter.overdue = overdue
        filter.dueToday = today
        filter.dueThisWeek = week
        filter.doneSince = doneSince
        filter.order = sort ?? .list
        filter.limit = limit
        let context = all || noContext ? nil : try ActiveContext.load(store)
        if let context { filter = filter.and(context.filter) }
        let (entries, problems, blocking) = try store.entries(filter, now: DocketClock.now)
        for problem in problems { Output.warning(problem.warning) }
        if json {
            if let context { Output.notice(context.notice) }
            // Todos as in their files (the shape `list --json` has always had); tasks with their kind and project.
            let todos = entries.compactMap { entry -> TodoItem? in if case let .todo(todo) = entry { todo } else { nil }
            }
            return try filter.projects == nil ? Output.json(todos) : Output.json(entries)
        }
        var text = ""
        if entries.isEmpty {
            text = emptyText(tasks: filter.projects != nil, context: context != nil) + "\n"
        } else {
            let now = DocketClock.now
            var relative = RelativeDays(now: now)
            text.reserveCapacity(entries.count * 96)
            for entry in entries {
                text += line(entry, now: now, relative: &relative, showProject: false, blocking: blocking)
                text += "\n"
            }
        }
        if let context { text += Output.dim(context.notice) + "\n" }
        Output.write(text)
    }

    func emptyText(tasks: Bool, context: Bool) -> String {
        let kind = tasks ? "tasks" : "todos"
        let filtered = !filtering.isEmpty || overdue || today || week || doneSince != nil || context
        if filtered { return "No \(kind) match." }
        if waiting { return "No \(kind) wait until a later date." }
        return done ? "No completed \(kind)." : (all ? "No \(kind)." : "No open \(kind).")
    }
}

/// One todo on one line: short id, check box, text, due date.
func line(_ todo: TodoItem, now: Date) -> String {
    var relative = RelativeDays(now: now)
    return line(.todo(todo), now: now, relative: &relative, showProject: false)
}

/// One todo or task on one line: short id, check box, text (with the task's project), due date, and what it waits on.
func line(
    _ entry: Entry, now: Date, relative days: inout RelativeDays, showProject: Bool = true,
    blocking: Blocking = Blocking()
) -> String {
    let box: String
    var text: String
    switch entry {
    case let .todo(todo):
        box = todo.completed ? "[x]" : "[ ]"
        text = todo.completed ? Output.dim(todo.shownText) : todo.shownText
    case let .task(task, project):
        box = mark(task.state)
        text = task.state == .finished ? Output.dim(task.shownTitle) : task.shownTitle
        if showProject { text += Output.dim("  · \(project.shownTitle)") }
    }
    var shown = "\(Output.dim(Output.short(entry.id)))  \(box)  \(text)"
    if let priority = entry.priority { shown += "  " + Shown.priority(priority) }
    if !entry.tags.isEmpty { shown += "  " + Output.cyan(Shown.tags(entry.tags)) }
    if let recurrence = entry.recurrence { shown += "  " + Output.dim("↻ \(recurrence.every)") }
    let due = entry.due
    if due != .unknown {
        let relative = days.text(for: due, done: entry.isDone)
        shown += "  " + (relative.hasPrefix("overdue") ? Output.red(relative) : Output.yellow(relative))
    }
    shown += PlanningMarks.marks(entry, now: now, blocking: blocking)
    return shown
}

/// `DateInput.relative` for many due dates against one `now`, each due date's text remembered (for an open and a
/// done item): a listing of 100,000 todos works out each once. NB: todos share due dates (a store from before
/// format 3 holds every one as a moment), and remembering only days' texts left a tenth of `list --all` to them.
struct RelativeDays {
    let now: Date
    private var known: [Key: String] = [:]

    // A day, or a moment to the bit (`DueDate`'s own equality is to the millisecond).
    private struct Key: Hashable {
        var day: Int64?
        var moment: Double?
        let done: Bool
    }

    init(now: Date) { self.now = now }

    mutating func text(for due: DueDate, done: Bool) -> String {
        var key = Key(done: done)
        switch due {
        case .unknown: break
        case let .date(date): key.moment = date.timeIntervalSinceReferenceDate
        case let .day(day): key.day = day.daysSince1970
        }
        if let text = known[key] { return text }
        let text = DateInput.relative(due, now: now, done: done)
        known[key] = text
        return text
    }
}
