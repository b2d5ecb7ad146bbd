import ArgumentParser
import Docket
import Foundation

/// `docket context`: named filters that `docket`, `today` and `list` apply while one is switched on.
struct ContextCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "context",
        abstract: "Save named filters, and switch one on for docket, today and list.",
        discussion: """
            A context is a filter saved under a name (Taskwarrior's contexts): words, +tag, \
            -tag, --priority, --project and a due range, as 'docket list' takes them. While one \
            is on, 'docket', 'today' and 'list' show only what it admits, along with their own \
            filters, and each says the context is on; --no-context (or 'list --all') shows \
            everything. Contexts are kept on this machine only, in .git/docket/contexts.json, \
            never synced: where one works on this machine says nothing of another's.

            Examples:
              docket context set work +work -someday
              docket context work
              docket context
              docket context none
            """,
        subcommands: [ContextUse.self, ContextSet.self, ContextRemove.self, ContextList.self],
        defaultSubcommand: ContextUse.self)
}

/// The error for a context name that names none.
private func unknownContext(_ name: String) -> ShownError {
    ShownError(message: "there is no context named \(Output.safe(name)); 'docket context list' shows them")
}

struct ContextUse: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "use",
        abstract: "Switch a context on (none: off); without a name, show the one that is on.",
        discussion: "'docket context work' is 'docket context use work'. Example: docket context none")

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The context's name, or none.", valueName: "name")) var name: String?

    func run() throws {
        let store = try self.store.open()
        guard let name else {
            guard let (active, words) = try store.filterContexts().current else {
                return print(
                    "No context is on. 'docket context set <name> <filter>' saves one, 'docket context <name>' switches it on."
                )
            }
            return print("Context \(Output.safe(active)): \(FilterOptions.shown(words))")
        }
        if name.lowercased() == "none" {
            let before = try store.filterContexts().current
            try store.changeFilterContexts { $0.active = nil }
            return print(before.map { "Context \(Output.safe($0.name)) is off." } ?? "No context was on.")
        }
        guard let words = try store.filterContexts().filters[name] else { throw unknownContext(name) }
        // NB: a context that no longer works (its project removed) is refused here, not at the next list.
        _ = try ActiveContext(name: name, words: words, in: store)
        try store.changeFilterContexts { $0.active = name }
        print(
            "Context \(Output.safe(name)) is on: \(FilterOptions.shown(words)). 'docket context none' turns it off.")
    }
}

struct ContextSet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Save a filter under a name (or change it); 'docket context <name>' switches it on.",
        discussion: """
            The filter is what 'docket list' takes: words, +tag, -tag, --priority, --project, \
            --due-before and --due-after. It is kept as typed and read at each use, so \
            '--due-before eow' is the end of the week it is used in.

            Examples:
              docket context set work +work -someday
              docket context set urgent --priority high --due-before tomorrow
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The context's name: one word.", valueName: "name")) var name: String
    @OptionGroup var filtering: FilterOptions

    func validate() throws {
        if let problem = FilterContexts.problem(with: name) { throw ValidationError(problem) }
        if filtering.isEmpty {
            throw ValidationError(
                "give the filter the context keeps: docket context set \(Output.safe(name)) +tag -tag --priority high")
        }
        _ = try filtering.words(command: ContextSet.self)
    }

    func run() throws {
        let store = try self.store.open()
        _ = try filtering.filter(in: store, command: ContextSet.self)
        let words = try filtering.typed(command: ContextSet.self)
        let before = try store.filterContexts()
        let contexts = try store.changeFilterContexts { $0.filters[name] = words }
        let verb = before.filters[name] == nil ? "Saved" : (before.filters[name] == words ? "Unchanged" : "Changed")
        print(
            contexts.active == name
                ? "\(verb) context \(Output.safe(name)) (on): \(FilterOptions.shown(words))"
                : "\(verb) context \(Output.safe(name)): \(FilterOptions.shown(words)). 'docket context \(Output.safe(name))' switches it on."
        )
    }
}

struct ContextRemove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Remove a context (switched off first if it is on).",
        discussion: "Example: docket context rm work")

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The context's name.", valueName: "name")) var name: String

    func run() throws {
        let store = try self.store.open()
        guard try store.filterContexts().filters[name] != nil else { throw unknownContext(name) }
        var wasOn = false
        try store.changeFilterContexts { contexts in
            wasOn = contexts.active == name
            contexts.filters[name] = nil
            if wasOn { contexts.active = nil }
        }
        print("Removed context \(Output.safe(name))\(wasOn ? "; no context is on now" : "").")
    }
}

struct ContextList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the contexts, the one that is on marked with *.",
        discussion: "--json prints [{\"name\", \"filter\": [words], \"active\"}], by name.")

    @OptionGroup var store: StoreOptions
    @Flag(help: "Print JSON for scripts.") var json = false

    private struct Row: Encodable {
        let name: String
        let filter: [String]
        let active: Bool
    }

    func run() throws {
        let contexts = try store.open().filterContexts()
        let names = contexts.filters.keys.sorted()
        if json {
            return try Output.json(
                names.map { Row(name: $0, filter: contexts.filters[$0]!, active: contexts.active == $0) })
        }
        if names.isEmpty { return print("No contexts. 'docket context set <name> <filter>' saves one.") }
        let width = names.map(\.count).max()!
        for name in names {
            let mark = contexts.active == name ? "*" : " "
            print(
                "\(mark) \(Output.safe(name).padding(toLength: width, withPad: " ", startingAt: 0))  \(FilterOptions.shown(contexts.filters[name]!))"
            )
        }
    }
}
