import ArgumentParser
import Docket
import Foundation

struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a todo and print its short id.",
        discussion: """
            Quotes are optional, and a word that starts with + is a tag: docket add Buy milk +errand --due tomorrow

            --every makes it repeat: day, weekday, week, month, year, or a number of them ("2 weeks"). \
            Completing it makes the next one, due one interval after this one's due date \
            (or, with --from completion, after the day it was done); a day stays a day, \
            and a time keeps its time of day.

            --wait hides it from the day's view and the lists until a date; --scheduled says when you plan to \
            start it; --depends makes it blocked until the todos or tasks it names are done.

            Examples:
              docket add "Buy milk" --due tomorrow --priority high
              docket add Call mom --due tomorrow 9am
              docket add Water plants +home --every week --due saturday
              docket add Paint the fence --wait friday --depends 3f2a,9c1e
            """)

    @OptionGroup var store: StoreOptions
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("What is to be done; words starting with + are tags.", valueName: "text"))
    var words: [String] = []
    @OptionGroup var options: NewItemOptions

    var parts: (text: String, tags: [String]) {
        get throws { try TagWords.split(words, what: "the text of a todo", command: Add.self) }
    }

    func validate() throws { _ = try parts }

    func run() throws {
        let (text, tags) = try parts
        let store = try self.store.open()
        var todo = TodoItem(text: text)
        todo = todo.alter(try options.changes(for: todo.id, tags: tags, store: store).map(\.todo))
        try store.addTodo(todo)
        print(Output.short(todo.id))
        // NB: the id on stdout stays the only output there; a person who would not find the todo in a list is told.
        if let context = try? ActiveContext.load(store),
            case let blocking = context.filter.readiness == .any ? Blocking() : (try? store.blocking()) ?? Blocking(),
            !context.filter.admits(.todo(todo), now: DocketClock.now, blocking: blocking)
        {
            Output.notice(
                "Context \(Output.safe(context.name)) is on (\(FilterOptions.shown(context.words))), and this todo is "
                    + "not in it: lists leave it out until 'docket context none'.")
        }
    }
}

/// What a new todo or task can be given as it is added (`docket add`, `docket task add`): a due date, a priority, how
/// it repeats, a wait and scheduled date, and what it depends on. Its +tags come from its words (`TagWords`).
struct NewItemOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "When it is due: \(DateInput.forms); several words need no quotes; none for no date.", valueName: "date"),
        transform: DueInput.parse)
    var due: DueInput?
    @Option(
        parsing: .unconditional, help: ArgumentHelp("high, medium or low.", valueName: "priority"),
        transform: PriorityInput.parse)
    var priority: PriorityInput?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Repeat it: day, weekday, week, month, year, or \"N days\" and the like.", valueName: "interval"),
        transform: RepeatInput.parseInterval)
    var every: Recurrence.Interval?
    @Option(
        help: ArgumentHelp(
            "Count the next due date from: due (the default) or completion.", valueName: "due|completion"),
        transform: RepeatInput.parseAnchor)
    var from: Recurrence.Anchor?
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Hide it until this date (a day: until it begins), read as --due is; none for no wait.", valueName: "date"),
        transform: DueInput.parse)
    var wait: DueInput?
    @Option(
        parsing: .unconditional, help: ArgumentHelp("When you plan to start it, read as --due is.", valueName: "date"),
        transform: DueInput.parse)
    var scheduled: DueInput?
    @Option(
        parsing: .singleValue,
        help: ArgumentHelp(
            "The todos or tasks it depends on: ids or unique prefixes, comma-separated.", valueName: "id[,id]"))
    var depends: [String] = []

    func validate() throws {
        if from != nil && every == nil { throw ValidationError("--from goes with --every: say how often it repeats") }
    }

    /// The changes that give the new item `id` these options and `tags`, for a todo or a task alike; the ids it
    /// depends on are looked up in `store`, and one it cannot depend on is refused.
    func changes(for id: UUID, tags: [String], store: Store) throws -> [SharedChange] {
        var changes: [SharedChange] = []
        if let due = due?.due { changes.append(.due(due)) }
        if !tags.isEmpty { changes.append(.tagging(add: tags, remove: [])) }
        if let priority = priority?.priority { changes.append(.priority(priority)) }
        // The new item is the first of its series.
        if let every { changes.append(.recurrence(Recurrence(every: every, from: from ?? .due, series: id))) }
        if let wait = wait?.due { changes.append(.wait(wait)) }
        if let scheduled = scheduled?.due { changes.append(.scheduled(scheduled)) }
        let dependencies = try DependencyWords.ids(depends, store: store)
        if !dependencies.isEmpty {
            try store.checkDependencies(of: id, on: dependencies)
            changes.append(.depending(add: dependencies, remove: []))
        }
        return changes
    }
}

/// A priority as typed: high, medium, low (or h, m, l), or none.
enum PriorityInput {
    case none
    case some(Priority)

    static func parse(_ text: String) throws -> PriorityInput {
        switch text.lowercased() {
        case "high", "h": .some(.high)
        case "medium", "m", "med": .some(.medium)
        case "low", "l": .some(.low)
        case "none", "-": .none
        default: throw ValidationError("'\(Output.safe(text))' is not a priority; use high, medium, low or none")
        }
    }

    var priority: Priority? {
        if case let .some(priority) = self { return priority }
        return nil
    }
}

/// How often, and from what, as typed.
enum RepeatInput {
    static func parseInterval(_ text: String) throws -> Recurrence.Interval {
        guard let interval = Recurrence.Interval(text: text) else {
            throw ValidationError(
                "'\(Output.safe(text))' is not an interval; use day, weekday, week, month, year, or a number of them such as \"2 weeks\""
            )
        }
        return interval
    }

    static func parseAnchor(_ text: String) throws -> Recurrence.Anchor {
        guard let anchor = Recurrence.Anchor(rawValue: text.lowercased()) else {
            throw ValidationError("'\(Output.safe(text))' is not what a repeat counts from; use due or completion")
        }
        return anchor
    }
}

/// Words of a text with tags among them: "+tag" words are tags, the rest is the text.
enum TagWords {
    static func split(_ words: [String], what: String, command: ParsableCommand.Type) throws -> (
        text: String, tags: [String]
    ) {
        let end = words.firstIndex(of: "--") ?? words.endIndex
        var tags: [String] = []
        var rest: [String] = []
        for (index, word) in words.enumerated() {
            if index < end, word.hasPrefix("+"), word.count > 1 {
                let tag = String(word.dropFirst())
                if let problem = Tags.problem(with: tag) {
                    throw ValidationError("'\(Output.safe(word))' is not a tag: \(problem)")
                }
                tags.append(tag)
            } else {
                rest.append(word)
            }
        }
        return (try TextWords.join(rest, what: what, command: command), tags)
    }
}
