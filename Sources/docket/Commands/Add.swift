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
            (or, with --from completion, after the day it was done).

            --wait hides it from the day's view and the lists until a date; --scheduled says when you plan to \
            start it; --depends makes it blocked until the todos or tasks it names are done.

            Examples:
              docket add "Buy milk" --due tomorrow --priority high
              docket add Water plants +home --every week --due saturday
              docket add Paint the fence --wait friday --depends 3f2a,9c1e
            """)

    @OptionGroup var store: StoreOptions
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp("What is to be done; words starting with + are tags.", valueName: "text"))
    var words: [String] = []
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("When it is due: \(DateInput.forms); none for no date.", valueName: "date"),
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
        help: ArgumentHelp("Hide it until this date (a day: until it begins); none for no wait.", valueName: "date"),
        transform: PlanDates.waitOption)
    var wait: DueInput?
    @Option(
        parsing: .unconditional, help: ArgumentHelp("When you plan to start it.", valueName: "date"),
        transform: PlanDates.scheduledOption)
    var scheduled: DueInput?
    @Option(
        parsing: .singleValue,
        help: ArgumentHelp(
            "The todos or tasks it depends on: ids or unique prefixes, comma-separated.", valueName: "id[,id]"))
    var depends: [String] = []

    var parts: (text: String, tags: [String]) {
        get throws { try TagWords.split(words, what: "the text of a todo", command: Add.self) }
    }

    func validate() throws {
        _ = try parts
        if from != nil && every == nil { throw ValidationError("--from goes with --every: say how often it repeats") }
    }

    func run() throws {
        let (text, tags) = try parts
        var todo = TodoItem(text: text)
        var changes: [TodoItem.Change] = []
        if let date = due?.date { changes.append(.due(date)) }
        if !tags.isEmpty { changes.append(.tagging(add: tags, remove: [])) }
        if let priority = priority?.priority { changes.append(.priority(priority)) }
        if let every { changes.append(.recurrence(Recurrence(every: every, from: from ?? .due, series: todo.id))) }
        if let date = wait?.date { changes.append(.wait(date)) }
        if let date = scheduled?.date { changes.append(.scheduled(date)) }
        let store = try self.store.open()
        let dependencies = try DependencyWords.ids(depends, store: store)
        if !dependencies.isEmpty {
            try store.checkDependencies(of: todo.id, on: dependencies)
            changes.append(.depending(add: dependencies, remove: []))
        }
        todo = todo.alter(changes)
        try store.addTodo(todo)
        print(Output.short(todo.id))
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
