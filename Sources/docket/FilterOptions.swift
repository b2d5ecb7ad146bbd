import ArgumentParser
import Docket
import Foundation

/// The filter `list`, `today` (and `docket` alone), `ready` and `context set` take:
/// words to find in the text, `+tag` (has it), `-tag` (has it not),
/// `--priority`, `--project` and a due range. All must hold. A `-tag` needs
/// no `--` before it: `FrontDoor.dashWords` hands such words over
/// as `--filter-word=-tag`, which the parser cannot take for short options
/// (`-new` is not `-n ew`), and they are read here with the parser's
/// unrecognized words, so a mistyped option (`--prio`, `-p`, `-json`) is
/// still refused with the nearest one. After `--`, `-x` leaves out the tag x.
struct FilterOptions: ParsableArguments {
    @Argument(
        parsing: .allUnrecognized,
        help: ArgumentHelp(
            "Words to find in the text; +tag: has the tag; -tag: has not (a one-letter tag after --).",
            valueName: "word|+tag|-tag"))
    var arguments: [String] = []
    /// Words that start with one dash, as `FrontDoor.dashWords` hands them over: before any `--`.
    @Option(name: .customLong(dashWordName), help: ArgumentHelp(visibility: .private)) var dashWords: [String] = []
    /// The hidden option's name, and the option as typed: what marks a command that takes a filter.
    static let dashWordName = "filter-word"
    static let dashWordOption = "--" + dashWordName
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Only this priority: high, medium, low or none (h, m, l), or several joined by commas.",
            valueName: "priority"))
    var priority: String?
    @Option(
        help: ArgumentHelp(
            "Only this project's tasks (its id, a unique prefix of it, or its title).", valueName: "project"))
    var project: String?
    @Option(
        name: [.customLong("due-before"), .customLong("before")], parsing: .unconditional,
        help: ArgumentHelp("Only those due before this date (a day: before it starts).", valueName: "date"))
    var dueBefore: String?
    @Option(
        name: .customLong("due-after"), parsing: .unconditional,
        help: ArgumentHelp("Only those due on this date or later (with a time: from then on).", valueName: "date"))
    var dueAfter: String?
    @Flag(help: "Only those blocked by an item they depend on that is not done yet.") var blocked = false
    @Flag(help: "Only those ready to be done: not waiting, not blocked, and scheduled for now or earlier, if at all.")
    var ready = false

    /// The words, read: text to find, tags it must have, tags it must not.
    struct Words: Equatable {
        var text: [String] = []
        var tags: [String] = []
        var excluded: [String] = []
    }

    func validate() throws {
        if blocked && ready { throw ValidationError("--blocked and --ready cannot be used together") }
        _ = try priorities
        _ = try dueBefore.map { try DateInput.parseDay($0) }
        _ = try dueAfter.map { try DateInput.parseDay($0) }
    }

    /// Whether anything narrows the list.
    var isEmpty: Bool {
        arguments.isEmpty && dashWords.isEmpty && priority == nil && project == nil && dueBefore == nil
            && dueAfter == nil && !blocked && !ready
    }

    /// The words read as text, +tags and -tags; a usage error for a word that looks like a mistyped option of
    /// `command`, naming the nearest of its options.
    func words(command: ParsableCommand.Type) throws -> Words {
        var words = Words()
        var ended = false
        var options: [String]?
        for word in dashWords + arguments {
            if word == "--" && !ended {
                ended = true
            } else if word.count > 1, word.hasPrefix("+") {
                words.tags.append(String(word.dropFirst()))
            } else if ended, word.count > 1, word.hasPrefix("-"), !word.hasPrefix("--") {
                words.excluded.append(String(word.dropFirst()))
            } else if !ended, word.count > 1, word.hasPrefix("-") {
                let declared = try options ?? CommandMetadata.of(command).shownNames
                options = declared
                // `-all` where `--all` is an option: more likely the option than a tag, so it is asked.
                if Self.isExclusion(word), !declared.contains("-" + word) {
                    words.excluded.append(String(word.dropFirst()))
                    continue
                }
                let near = declared.contains("-" + word) ? "-" + word : Suggest.nearest(word, among: declared)
                let tag =
                    word.hasPrefix("--")
                    ? "" : " (to leave out the tag \(Output.safe(String(word.dropFirst()))), put it after '--')"
                throw ValidationError(
                    "unknown option '\(Output.safe(word))'\(near.map { "; did you mean '\($0)'?" } ?? "")\(tag)")
            } else {
                words.text.append(word)
            }
        }
        return words
    }

    /// `-tag`: a dash and two or more characters, not a second dash. (`-x` is an option, as a mistyped one is refused.)
    static func isExclusion(_ word: String) -> Bool {
        word.count > 2 && word.hasPrefix("-") && !word.hasPrefix("--")
    }

    /// Whether a word before a command's name is a filter's (`docket +work`, `docket -home list`).
    static func isTagWord(_ word: String) -> Bool { (word.count > 1 && word.hasPrefix("+")) || isExclusion(word) }

    /// The priorities asked for; nil for any.
    var priorities: Set<Priority?>? {
        get throws {
            try priority.map { text in
                Set(
                    try text.split(separator: ",", omittingEmptySubsequences: false).map {
                        try PriorityInput.parse(String($0)).priority
                    })
            }
        }
    }

    /// The filter these words and options make, its project looked up in `store`. Dates are read as of now.
    func filter(in store: Store, command: ParsableCommand.Type) throws -> EntryFilter {
        let words = try self.words(command: command)
        var filter = EntryFilter()
        // NB: the words say nothing of open or done, or of waiting items; the command does, and a context must not.
        filter.status = .all
        filter.waiting = .shown
        filter.readiness = ready ? .ready : blocked ? .blocked : .any
        filter.words = words.text
        filter.tags = words.tags
        filter.excludedTags = words.excluded
        filter.priorities = try priorities
        filter.projects = try project.map { [try store.projectID(idOrTitle: $0)] }
        filter.dueBefore = try dueBefore.map { try DateInput.parseDay($0) }
        filter.dueFrom = try dueAfter.map { try DateInput.parseDay($0) }
        return filter
    }

    /// The words and options as a person would type them again (what a context keeps, and shows): text, +tags,
    /// -tags, options, then after `--` what must go there (a one-letter tag to leave out, say).
    func typed(command: ParsableCommand.Type) throws -> [String] {
        let words = try self.words(command: command)
        let options = try CommandMetadata.of(command).shownNames
        var before = words.text.filter { !$0.hasPrefix("-") } + words.tags.map { "+" + $0 }
        var after = words.text.filter { $0.hasPrefix("-") }
        for tag in words.excluded {
            let word = "-" + tag
            if FrontDoor.isDashWord(word) && !options.contains("-" + word) {
                before.append(word)
            } else {
                after.insert(word, at: 0)
            }
        }
        for (name, value) in [
            ("--priority", priority), ("--project", project), ("--due-before", dueBefore), ("--due-after", dueAfter),
        ] {
            if let value { before += [name, value] }
        }
        if blocked { before.append("--blocked") }
        if ready { before.append("--ready") }
        return after.isEmpty ? before : before + ["--"] + after
    }

    /// Typed words as a person reads them: one line, a word with spaces quoted.
    static func shown(_ words: [String]) -> String {
        words.map { word in
            let safe = Output.safe(word)
            return word.isEmpty || word.contains(" ") ? "\"\(safe)\"" : safe
        }.joined(separator: " ")
    }
}

/// `--sort`: keys joined by commas, each `-` before it to reverse.
enum SortInput {
    static func parse(_ text: String) throws -> EntryOrder {
        let terms = try text.split(separator: ",", omittingEmptySubsequences: false).map { word in
            guard let term = EntryOrder.Term(text: String(word).trimmingCharacters(in: .whitespaces)) else {
                throw ValidationError(
                    "'\(Output.safe(String(word)))' is not a sort key; use \(keys), each with - before it to reverse: --sort due,-modified"
                )
            }
            return term
        }
        return EntryOrder(terms)
    }

    static let keys = EntryOrder.Key.allCases.map(\.rawValue).joined(separator: ", ")
}

/// The context switched on in a store, as the filter it makes.
struct ActiveContext {
    let name: String
    let words: [String]
    let filter: EntryFilter

    /// The context switched on; nil when none is. One that no longer reads (its project removed on another machine,
    /// say) is left out with a warning that says why and how to change it or turn it off: the list shows everything.
    static func load(_ store: Store) throws -> ActiveContext? {
        guard let (name, words) = try store.filterContexts().current else { return nil }
        do {
            return try ActiveContext(name: name, words: words, in: store)
        } catch let error as Broken {
            Output.warning(error.message(then: "showing everything"))
            return nil
        }
    }

    /// A context that no longer reads, and why.
    struct Broken: Error, CustomStringConvertible {
        let name: String
        let words: [String]
        let reason: String

        /// What to say, with what is done meanwhile (`then`) if anything.
        func message(then: String? = nil) -> String {
            "the context \(Output.safe(name)) (\(FilterOptions.shown(words))) does not work: \(Output.safeLines(reason))"
                + (then.map { "; \($0)" } ?? "")
                + "; change it with 'docket context set \(Output.safe(name)) …', or turn it off with 'docket context none'"
        }

        var description: String { message() }
    }

    /// The context `name` of these words, read now. A context that no longer reads (its project removed, say) is an
    /// error (`Broken`) that says how to change it or turn it off.
    init(name: String, words: [String], in store: Store) throws {
        self.name = name
        self.words = words
        do {
            filter = try FilterOptions.parse(
                FrontDoor.dashWords(words, valued: Set(CommandMetadata.of(ContextSet.self).valued.keys))
            ).filter(
                in: store, command: ContextSet.self)
        } catch {
            let reason = error is StoreError ? "\(error)" : FilterOptions.message(for: error)
            throw Broken(name: name, words: words, reason: reason)
        }
    }

    /// What every listing says while the context narrows it.
    var notice: String {
        "Context \(Output.safe(name)): \(FilterOptions.shown(words))  ('docket context none' turns it off)"
    }
}
