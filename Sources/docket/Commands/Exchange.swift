import ArgumentParser
import Docket
import DocketSystem
import Foundation

/// The largest file an import reads: 100,000 tasks exported by Taskwarrior take about 40 MiB.
let importLimit = 512 << 20

/// The bytes of a file named on the command line ("-" for standard input), refusing a link, a folder or a giant.
func readInput(_ path: String) throws -> Data {
    if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
    do {
        return try Folder.readFile(URL(fileURLWithPath: Home.expand(path)).path, limit: importLimit)
    } catch let FileProblem.tooLarge(size, limit) {
        throw ValidationError(
            "\(Output.safe(path)) is \(size) bytes, larger than the \(limit >> 20) MiB an import reads; split it")
    } catch let problem as FileProblem {
        throw ValidationError("\(Output.safe(path)) \(problem.description)")
    }
}

/// Runs an import and says what it did, or why nothing was imported.
func runImport(_ store: Store, _ batch: ExchangeBatch, from source: String, skippingBad: Bool, tool: String? = nil)
    throws
{
    let outcome: ImportOutcome
    do {
        outcome = try store.importBatch(batch, from: source, skippingBad: skippingBad, tool: tool)
    } catch let refused as ImportRefused {
        throw ShownError(message: Output.safeLines(refused.description))
    }
    for problem in outcome.skipped { Output.warning(Output.safe(problem.skippedLine)) }
    // NB: with nothing committed too: a value the file gave that lost to a later edit in Docket is said, not dropped.
    print(outcome.commit.map { "Committed \($0.prefix(7)): " } ?? "", Output.safe(outcome.summary), separator: "")
    for line in outcome.report.items.flatMap(\.lines) { print("  " + Output.safe(line)) }
    for note in outcome.notes { print(Output.safe(note)) }
}

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Bring in todos, tasks and time from Taskwarrior, todo.txt or Timewarrior, as one commit.",
        discussion: """
            Importing the same file again changes nothing; a newer export updates what changed, \
            and where an item was also edited in Docket, each field keeps the later edit \
            (the commit records what lost). Nothing is imported while any entry cannot be read, \
            unless --skip-bad is given.
            """,
        subcommands: [ImportTaskwarrior.self, ImportTodoTxt.self, ImportTimewarrior.self])
}

struct ImportTaskwarrior: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "taskwarrior",
        abstract:
            "Import 'task export' JSON (Taskwarrior 2.6 or 3): tasks without a project become todos, others tasks of that project.",
        discussion: "Example: task export | docket import taskwarrior")

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The export's file; - or nothing for standard input.", valueName: "file")) var file =
        "-"
    @Flag(help: "Import the entries that read, skipping those that do not.") var skipBad = false

    func run() throws {
        let store = try self.store.open()
        let data = try readInput(file)
        let state = loadWarning(try store.load())
        let projects = Dictionary(state.projects.map { ($0.title, $0.id) }, uniquingKeysWith: { a, _ in a })
        let batch = Taskwarrior.joiningInstances(
            Taskwarrior.read(data, file: file == "-" ? "standard input" : file, projects: projects), store: state)
        try runImport(store, batch, from: "Taskwarrior", skippingBad: skipBad, tool: "taskwarrior")
    }
}

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the todos and tasks for Taskwarrior or todo.txt.",
        subcommands: [ExportTaskwarrior.self, ExportTodoTxt.self])
}

struct ExportTaskwarrior: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "taskwarrior",
        abstract:
            "Print JSON that 'task import' reads: every todo and project task, repeating ones with their template, removed ones as deleted.",
        discussion: "Example: docket export taskwarrior > docket.json && task import docket.json")

    @OptionGroup var store: StoreOptions

    func run() throws {
        let store = try self.store.open()
        let state = loadWarning(try store.load())
        // Removed items go as deleted tasks, so Taskwarrior drops them too; each is found as it was last committed.
        let removed = try store.removedItems()
        if removed.missing > 0 {
            Output.warning(
                "\(removed.missing) removed \(removed.missing == 1 ? "item is" : "items are") not in the last 10,000 commits: "
                    + "not exported as deleted")
        }
        // A series stopped in Docket ends in Taskwarrior: its instances keep their repetition there, and its
        // template goes as deleted.
        let (exported, ended) = Taskwarrior.endingStoppedSeries(
            state, previous: store.lastExport(to: "taskwarrior"))
        let text = try Taskwarrior.export(exported, removed: removed.items, ended: ended)
        store.noteExport(to: "taskwarrior", exported)
        Output.export(String(decoding: Output.jsonSafe(text), as: UTF8.self) + "\n")
    }
}

struct ImportTodoTxt: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todotxt",
        abstract:
            "Import a todo.txt file (and its done.txt): +project and @context become tags, (A) (B) (C) priorities, due: the due date.",
        discussion: "Example: docket import todotxt ~/todo/todo.txt ~/todo/done.txt")

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("todo.txt, then optionally done.txt.", valueName: "file")) var files: [String]
    @Flag(help: "Import the lines that read, skipping those that do not.") var skipBad = false

    func validate() throws {
        if files.isEmpty || files.count > 2 {
            throw ValidationError("name a todo.txt file, and optionally its done.txt")
        }
    }

    func run() throws {
        let store = try self.store.open()
        let todos = Dictionary(loadWarning(try store.load()).todos.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        // NB: a line has no date of its own edit: its file's is when todo.sh (or an editor) last changed it.
        var modified: [String: Date] = [:]
        for file in files where file != "-" {
            modified[file] =
                (try? FileManager.default.attributesOfItem(atPath: Home.expand(file)))?[.modificationDate] as? Date
        }
        // NB: todo.sh moves a done line to the done.txt beside its todo.txt: a line there, unnamed, is not gone.
        var elsewhere: [(name: String, data: Data)] = []
        if files.count == 1, files[0] != "-" {
            let done = (Home.expand(files[0]) as NSString).deletingLastPathComponent + "/done.txt"
            if done != Home.expand(files[0]), let data = try? Folder.readFile(done, limit: importLimit) {
                elsewhere.append((done, data))
            }
        }
        let batch = TodoTxt.read(
            try files.map { ($0 == "-" ? "standard input" : $0, try readInput($0)) }, existing: { todos[$0] },
            modified: modified, known: store.todoTxtLines(), elsewhere: elsewhere)
        try runImport(store, batch, from: "todo.txt", skippingBad: skipBad, tool: "todotxt")
    }
}

struct ImportTimewarrior: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timewarrior",
        abstract: "Import 'timew export' JSON as time slips: an interval's tags, joined by spaces, name its task.",
        discussion: """
            A task of that title in any project receives the slip; otherwise the task is made in the project "Timewarrior". \
            An interval without tags goes to the task "Untagged"; an open one is a running slip.

            Example: timew export | docket import timewarrior
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The export's file; - or nothing for standard input.", valueName: "file")) var file =
        "-"
    @Flag(help: "Import the intervals that read, skipping those that do not.") var skipBad = false

    func run() throws {
        let store = try self.store.open()
        let data = try readInput(file)
        let batch = Timewarrior.read(
            data, file: file == "-" ? "standard input" : file, projects: loadWarning(try store.load()).projects)
        try runImport(store, batch, from: "Timewarrior", skippingBad: skipBad)
    }
}

struct ExportTodoTxt: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "todotxt",
        abstract: "Print the todos as todo.txt lines, open ones first; a todo made in Docket carries its id as id:.",
        discussion: "Example: docket export todotxt > ~/todo/todo.txt")

    @OptionGroup var store: StoreOptions

    func run() throws {
        let store = try self.store.open()
        let todos = loadWarning(try store.load()).todos
        store.noteExport(to: "todotxt", AppState(todos: todos, projects: [], removed: []))
        Output.export(TodoTxt.export(todos))
    }
}

struct ICalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ical",
        abstract: "Reach calendars and phones: keep a folder of .ics files in step with the store, or write one .ics.",
        subcommands: [ICalSync.self, ICalExport.self])
}

struct ICalSync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract:
            "Keep a folder of .ics files (one VTODO each, as vdirsyncer and todoman keep) in step with the store, both ways.",
        discussion: """
            Each todo, and each project task with a due date, is <id>.ics. What a calendar app added, edited, \
            completed, cancelled or removed in the folder comes back as a commit, merged by Docket's rules against \
            the version the app started from; its decisions show in 'docket merges', and 'docket undo' takes it back. \
            Properties Docket does not know are kept in the files. vdirsyncer carries the folder to a CalDAV server \
            (docs/DATA.md: "Phones and calendars").

            Example: docket ical sync ~/.local/share/docket/calendar && vdirsyncer sync
            """)

    @OptionGroup var store: StoreOptions
    @Argument(help: ArgumentHelp("The folder of .ics files.", valueName: "folder")) var folder: String
    @Flag(help: "Sync the files that read, leaving those that do not (and their items) as they are.") var skipBad =
        false

    func run() throws {
        let store = try self.store.open()
        let path = URL(fileURLWithPath: Home.expand(folder)).standardizedFileURL.path
        let outcome: CalendarSyncOutcome
        do {
            outcome = try store.syncCalendar(folder: path, skippingBad: skipBad)
        } catch let refused as ImportRefused {
            throw ShownError(message: Output.safeLines(refused.description))
        }
        for problem in outcome.skipped { Output.warning(Output.safe(problem.skippedLine)) }
        for problem in outcome.setAside {
            Output.warning(Output.safe("Set aside, the rest synced: \(problem.description)"))
        }
        for line in outcome.report.items.flatMap(\.lines) { print(Output.safe(line)) }
        for summary in outcome.copiesTaken {
            print(
                Output.safe(
                    "A calendar app's copy '\(summary)' is the next instance Docket made: its file is removed, so the "
                        + "calendar holds one todo for it."))
        }
        if outcome.storeChanges == 0 && outcome.filesWritten == 0 && outcome.filesRemoved == 0 {
            return print("In step: nothing changed on either side.")
        }
        func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
        print(
            "Calendar: \(count(outcome.storeChanges, "item")) changed in the store, \(count(outcome.filesWritten, "file")) written, \(count(outcome.filesRemoved, "file")) removed."
        )
    }
}

struct ICalExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract:
            "Print one .ics of every todo and every project task with a due date, for a calendar to subscribe to (read-only).",
        discussion: "Example: docket ical export > ~/public/docket.ics")

    @OptionGroup var store: StoreOptions

    func run() throws {
        let (text, problems) = try store.open().calendarExport()
        for problem in problems { Output.warning(Output.safe(problem.description)) }
        Output.export(text)
    }
}
