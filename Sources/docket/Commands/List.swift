import ArgumentParser
import Docket
import Foundation

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the todos: open ones by default.",
        discussion: """
            --json prints an array of todos, each as in its file: id, text, completed, \
            creationDate, dueDate, alterDate (dates ISO-8601 UTC, null when unset).

            Example: docket list --all
            """)

    @OptionGroup var store: StoreOptions
    @Flag(help: "Also list completed todos.") var all = false
    @Flag(help: "List only completed todos.") var done = false
    @Flag(help: "Print JSON for scripts.") var json = false

    func validate() throws {
        if all && done { throw ValidationError("--all and --done cannot be used together") }
    }

    func run() throws {
        let (loaded, problems) = try store.open().loadTodos()
        for problem in problems { Output.warning(problem.warning) }
        let todos = loaded.filter { all || (done ? $0.completed : !$0.completed) }
        if json { return try Output.json(todos) }
        if todos.isEmpty {
            print(done ? "No completed todos." : (all ? "No todos." : "No open todos."))
            return
        }
        let now = Date()
        var relative = RelativeDays(now: now)
        var text = ""
        text.reserveCapacity(todos.count * 96)
        for todo in todos {
            text += line(todo, now: now, relative: &relative)
            text += "\n"
        }
        Output.write(text)
    }
}

/// One todo on one line: short id, check box, text, due date.
func line(_ todo: TodoItem, now: Date) -> String {
    var relative = RelativeDays(now: now)
    return line(todo, now: now, relative: &relative)
}

func line(_ todo: TodoItem, now: Date, relative days: inout RelativeDays) -> String {
    var text = "\(Output.dim(Output.short(todo.id)))  \(todo.completed ? "[x]" : "[ ]")  \(todo.completed ? Output.dim(todo.shownText) : todo.shownText)"
    if let due = todo.dueDate {
        let relative = days.text(for: due)
        text += "  " + (relative.hasPrefix("overdue") && !todo.completed ? Output.red(relative) : Output.yellow(relative))
    }
    return text
}

/// `DateInput.relative` for many dates against one `now`, remembered per quarter hour.
/// NB: every time zone's offset and every daylight-saving change is a whole number
/// of quarter hours from UTC, so all dates in one UTC quarter hour share a local day;
/// the calendar work is done once per quarter hour instead of once per todo.
struct RelativeDays {
    let now: Date
    private var known: [Int64: String] = [:]

    init(now: Date) { self.now = now }

    mutating func text(for due: Date) -> String {
        let quarter = Int64((due.timeIntervalSince1970 / 900).rounded(.down))
        if let text = known[quarter] { return text }
        let text = DateInput.relative(due, now: now)
        known[quarter] = text
        return text
    }
}
