import ArgumentParser
import Docket
import Foundation

struct Tag: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag",
        abstract: "Add (+tag) and remove (-tag) tags of a todo or task.",
        discussion: "Example: docket tag 3f2a +home -work")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's or task's id or a unique prefix.", completion: Completions.openItems) var id: String
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("+tag to add, -tag to remove.", valueName: "+tag|-tag"))
    var changes: [String] = []

    var parsed: (add: [String], remove: [String]) {
        get throws {
            var add: [String] = []
            var remove: [String] = []
            for word in changes {
                guard let sign = word.first, sign == "+" || sign == "-", word.count > 1 else {
                    throw ValidationError(
                        "'\(Output.safe(word))' is neither +tag nor -tag: docket tag <id> +home -work")
                }
                let tag = String(word.dropFirst())
                if let problem = Tags.problem(with: tag) {
                    throw ValidationError("'\(Output.safe(word))' is not a tag: \(problem)")
                }
                if sign == "+" { add.append(tag) } else { remove.append(tag) }
            }
            if add.isEmpty && remove.isEmpty {
                throw ValidationError("give tags to add (+tag) or remove (-tag): docket tag <id> +home -work")
            }
            return (add, remove)
        }
    }

    func validate() throws { _ = try parsed }

    func run() throws {
        let store = try self.store.open()
        let (add, remove) = try parsed
        let changed = try store.changeEntry(
            try store.entryRef(id), [.tagging(add: add, remove: remove)])
        let tags = changed.after.tags
        print(
            "\(changed.before == changed.after ? "Unchanged" : "Tagged"): \(Output.safe(changed.after.text))  "
                + (tags.isEmpty ? Output.dim("no tags") : Output.cyan(Shown.tags(tags))))
    }
}

struct SetPriority: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "priority",
        abstract: "Set the priority of a todo or task: high, medium, low or none.",
        discussion: "Example: docket priority 3f2a high")

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's or task's id or a unique prefix.", completion: Completions.openItems) var id: String
    @Argument(help: "high, medium, low or none.", transform: PriorityInput.parse) var priority: PriorityInput

    func run() throws {
        let store = try self.store.open()
        let value = priority.priority
        let changed = try store.changeEntry(
            try store.entryRef(id), [.priority(value)])
        print(
            "\(changed.before == changed.after ? "Unchanged" : "Priority \(value?.rawValue ?? "none")"): \(Output.safe(changed.after.text))"
        )
    }
}

struct NoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "note",
        abstract: "Add a dated note to a todo or task; or edit or remove one.",
        discussion: """
            Notes are numbered as 'docket show' lists them, oldest first.

            Examples:
              docket note 3f2a called, left a message
              docket note 3f2a --edit 1 called twice
              docket note 3f2a --remove 1
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's or task's id or a unique prefix.", completion: Completions.openItems) var id: String
    @Argument(parsing: .allUnrecognized, help: ArgumentHelp("What the note says (quotes optional).", valueName: "text"))
    var words: [String] = []
    @Option(help: ArgumentHelp("Set the text of this note instead.", valueName: "n")) var edit: Int?
    @Option(help: ArgumentHelp("Remove this note.", valueName: "n")) var remove: Int?

    func validate() throws {
        if edit != nil && remove != nil { throw ValidationError("--edit and --remove cannot be used together") }
        if remove != nil, !words.isEmpty {
            throw ValidationError("--remove takes no text: docket note <id> --remove <n>")
        }
        if remove == nil { _ = try TextWords.join(words, what: "a note", command: NoteCommand.self) }
    }

    func run() throws {
        let store = try self.store.open()
        let ref = try store.entryRef(id)
        let change: Note.Change
        if let number = edit ?? remove {
            let notes = try store.entry(ref).notes
            guard notes.indices.contains(number - 1) else {
                throw ValidationError(
                    notes.isEmpty
                        ? "it has no notes" : "it has notes 1 to \(notes.count); 'docket show \(id)' lists them")
            }
            let note = notes[number - 1]
            change =
                remove != nil
                ? .remove(note.id)
                : .edit(note.id, text: try TextWords.join(words, what: "a note", command: NoteCommand.self))
        } else {
            change = .add(Note(text: try TextWords.join(words, what: "a note", command: NoteCommand.self)))
        }
        let changed = try store.changeEntry(
            ref, [.noting(change)])
        let verb =
            switch change {
            case .add: "Noted"
            case .edit: "Note edited"
            case .remove: "Note removed"
            }
        print(
            "\(changed.before == changed.after ? "Unchanged" : verb): \(Output.safe(changed.after.text)) (\(changed.after.notes.count) \(changed.after.notes.count == 1 ? "note" : "notes"))"
        )
    }
}

struct Repeat: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "repeat",
        abstract: "Make a todo or task repeat, change how, or stop it (none).",
        discussion: """
            The interval is day, weekday, week, month, year, or a number of them ("2 weeks"). \
            Completing the todo (or finishing the task) makes the next one. \
            The change applies to this instance and those made from it.

            Examples:
              docket repeat 3f2a week
              docket repeat 3f2a 3 days --from completion
              docket repeat 3f2a none
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: "The todo's or task's id or a unique prefix.", completion: Completions.openItems) var id: String
    @Argument(help: ArgumentHelp("How often, or none to stop.", valueName: "interval")) var words: [String]
    @Option(
        help: ArgumentHelp("Count the next due date from: due or completion.", valueName: "due|completion"),
        transform: RepeatInput.parseAnchor)
    var from: Recurrence.Anchor?

    var interval: Recurrence.Interval? {
        get throws {
            let text = words.joined(separator: " ")
            if text.lowercased() == "none" { return nil }
            return try RepeatInput.parseInterval(text)
        }
    }

    func validate() throws {
        if words.isEmpty { throw ValidationError("say how often (week, \"2 days\"…) or none") }
        if try interval == nil, from != nil { throw ValidationError("--from goes with an interval, not none") }
    }

    func run() throws {
        let store = try self.store.open()
        let every = try interval
        /// The recurrence the item gets: a series of its own, or the one it is in, changed.
        func recurrence(_ current: Recurrence?, id: UUID) -> Recurrence? {
            every.map {
                Recurrence(
                    every: $0, from: from ?? current?.from ?? .due, series: current?.series ?? id,
                    occurrence: current?.occurrence ?? 1, until: current?.until)
            }
        }
        let changed = try store.changeEntries([try store.entryRef(id)]) { entry in
            [.recurrence(recurrence(entry.recurrence, id: entry.id))]
        }[0]
        let after = changed.after
        if let recurrence = after.recurrence {
            print(
                "\(changed.before == after ? "Unchanged" : "Repeats"): \(after.shownText), \(recurrence.description(due: after.due))"
            )
        } else {
            print("\(changed.before == after ? "Does not repeat" : "Stopped repeating"): \(after.shownText)")
        }
    }
}
