import ArgumentParser
import Docket
import Foundation

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the todos (open ones by default), overdue first, then by due date.",
        discussion: """
            Words given are searched for in the text (all of them, in any case); \
            +tag words keep only those with the tag. Todos that wait until a later date \
            ('docket wait') are left out unless --waiting or --all is given. \
            Due filters are alternatives (--overdue --today: either); every other \
            filter must hold too. --project lists that project's tasks instead of the todos.

            --json prints an array of the items as in their files: a todo has id, text, \
            completed, creationDate, dueDate, alterDate (dates ISO-8601 UTC, null when unset; \
            a dueDate is YYYY-MM-DD without a time, else ISO-8601 with its local offset), \
            and when set tags, priority, notes, completedDate, recurrence, waitDate and scheduledDate \
            (each as a dueDate) and dependencies (ids); \
            with --project, tasks, each with its project.

            Examples:
              docket list --overdue --today
              docket list milk --all
              docket list --before friday -n 5
              docket list --done-since monday
              docket list +errand
              docket list --waiting
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("Words to search for in the text; +tag for a tag.", valueName: "word")) var arguments:
        [String] = []

    /// The words searched for, without the +tag ones.
    var words: [String] { arguments.filter { !isTag($0) } }
    /// The tags asked for.
    var tags: [String] { arguments.filter(isTag).map { String($0.dropFirst()) } }
    private func isTag(_ word: String) -> Bool { word.hasPrefix("+") && word.count > 1 }
    @Flag(help: "Also list completed todos.") var all = false
    @Flag(help: "List only completed todos.") var done = false
    @Flag(help: "List only the todos that wait until a later date (left out otherwise; --all shows them too).")
    var waiting = false
    @Flag(help: "Only overdue ones: due on a day that has ended, or at a time gone by.") var overdue = false
    @Flag(help: "Only those due today.") var today = false
    @Flag(help: "Only those due from today to the end of this week (Sunday).") var week = false
    @Option(
        parsing: .unconditional, help: ArgumentHelp("Only those due before this date.", valueName: "date"),
        transform: DateInput.parseDay)
    var before: Date?
    @Option(
        name: .customLong("done-since"), parsing: .unconditional,
        help: ArgumentHelp("Only those done since this date.", valueName: "date"),
        transform: DateInput.parseSince)
    var doneSince: Date?
    @Option(help: ArgumentHelp("List this project's tasks (its id or a unique prefix).", valueName: "project"))
    var project: String?
    @Option(
        name: [.customShort("n"), .customLong("limit")], help: ArgumentHelp("At most this many.", valueName: "count"))
    var limit: Int?
    @Flag(help: "Print JSON for scripts.") var json = false

    func validate() throws {
        if all && done { throw ValidationError("--all and --done cannot be used together") }
        if waiting && done {
            throw ValidationError("--waiting and --done cannot be used together: done todos wait for nothing")
        }
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more") }
        if let option = words.first(where: TextWords.looksLikeOption) {
            throw ValidationError(UnknownOption.message(option, of: List.self))
        }
    }

    var filter: EntryFilter {
        var filter = EntryFilter()
        filter.status = all ? .all : (done || doneSince != nil ? .done : .open)
        filter.waiting = waiting ? .only : all ? .shown : .hidden
        filter.overdue = overdue
        filter.dueToday = today
        filter.dueThisWeek = week
        filter.dueBefore = before
        filter.words = words
        filter.tags = tags
        filter.doneSince = doneSince
        filter.limit = limit
        return filter
    }

    func run() throws {
        let store = try self.store.open()
        let projects = try project.map { [try store.projectID($0)] }
        let (entries, problems, blocking) = try store.entries(filter, tasksOf: projects, now: Date())
        for problem in problems { Output.warning(problem.warning) }
        if json {
            // Todos as in their files (the shape `list --json` has always had); tasks with their kind and project.
            let todos = entries.compactMap { entry -> TodoItem? in if case let .todo(todo) = entry { todo } else { nil }
            }
            return try projects == nil ? Output.json(todos) : Output.json(entries)
        }
        if entries.isEmpty { return print(emptyText(tasks: projects != nil)) }
        let now = Date()
        var relative = RelativeDays(now: now)
        var text = ""
        text.reserveCapacity(entries.count * 96)
        for entry in entries {
            text += line(entry, now: now, relative: &relative, showProject: false, blocking: blocking)
            text += "\n"
        }
        Output.write(text)
    }

    func emptyText(tasks: Bool) -> String {
        let kind = tasks ? "tasks" : "todos"
        let filtered = !arguments.isEmpty || overdue || today || week || before != nil || doneSince != nil
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

/// `DateInput.relative` for many due dates against one `now`, a day's text remembered: a listing of 100,000 todos
/// works out each day's once.
struct RelativeDays {
    let now: Date
    private var known: [Int64: String] = [:]

    init(now: Date) { self.now = now }

    mutating func text(for due: DueDate, done: Bool) -> String {
        guard case let .day(day) = due, !done else { return DateInput.relative(due, now: now, done: done) }
        if let text = known[day.daysSince1970] { return text }
        let text = DateInput.relative(due, now: now)
        known[day.daysSince1970] = text
        return text
    }
}
