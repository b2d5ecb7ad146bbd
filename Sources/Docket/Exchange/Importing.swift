import DocketMerge
import DocketModel
import DocketSystem
import Foundation

/// Something an import or a calendar sync could not read: the file, where in
/// it (a line, an item), what is wrong, and what was skipped.
public struct ExchangeProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file, as the user named it.
    public let file: String
    /// Where in the file: "line 3", "task 5 (uuid 7c1e…)", or empty for the whole file.
    public let place: String
    /// What is wrong.
    public let reason: String
    /// What was left out because of it.
    public let skipped: String

    public init(file: String, place: String = "", reason: String, skipped: String) {
        self.file = file
        self.place = place
        self.reason = reason
        self.skipped = skipped
    }

    /// "tasks.json, task 3: due "soon" is not a date".
    public var description: String {
        "\(file)\(place.isEmpty ? "" : ", \(place)"): \(reason)"
    }

    /// "Skipped that task: tasks.json, task 3: due "soon" is not a date".
    public var skippedLine: String { "Skipped \(skipped): \(description)" }
}

/// What a reader made of a file: the items it holds and what it could not read.
public struct ExchangeBatch: Sendable {
    /// The items read, as the store would hold them; tombstones for items the source removed.
    public var state: AppState
    /// What could not be read, in file order.
    public var problems: [ExchangeProblem]
    /// What the import kept without using, or did not carry: a line each, for its summary and commit message.
    public var notes: [String]
    /// Whether a repeating todo the source completed gets its next instance from the import (the source makes none).
    public var completesSeries = false
    /// Whether a repeating todo without a due date the source completed gets its next instance from the import: the
    /// source makes none for such a series (Taskwarrior repeats only a task with a due date).
    public var completesUndatedSeries = false
    /// Whether the source says a task's clock only by whether it runs and since when (Taskwarrior's `start`): a task
    /// keeps the slips the store has, a running slip it names is the store's of that start, and one it no longer
    /// names is stopped (`Store.settledClock`).
    public var clockAsStart = false
    /// Removals the source says only by an item's absence (a todo.txt line gone): each is weighed against the store's
    /// item with no common ancestor, so the merge records it, and `merges restore` brings the item back.
    public var inferredRemovals: Set<UUID> = []
    /// Whether the import makes the next instance of this todo, once completed, as the source makes none.
    func completes(_ todo: TodoItem) -> Bool { completesSeries || completesUndatedSeries && todo.due == .unknown }

    public init(state: AppState = AppState(), problems: [ExchangeProblem] = [], notes: [String] = []) {
        self.state = state
        self.problems = problems
        self.notes = notes
    }
}

/// An import refused because some of its input did not read: nothing was changed.
public struct ImportRefused: Error, Sendable, CustomStringConvertible {
    /// Each problem found.
    public let problems: [ExchangeProblem]
    /// The option that goes on with the rest anyway.
    public let option: String
    /// What was refused: "import" or "sync".
    public var action = "import"

    public var description: String {
        let shown = problems.prefix(20).map { "  " + $0.description }
        let more = problems.count > 20 ? ["  … and \(problems.count - 20) more"] : []
        let done = action == "sync" ? "synced" : "imported"
        return
            ([
                "\(problems.count == 1 ? "1 entry" : "\(problems.count) entries") could not be read, so nothing was \(done):"
            ] + shown + more
            + ["Fix the input, or run again with \(option) to \(action) the rest."]).joined(separator: "\n")
    }
}

extension Store {
    /// Puts every store file back as the last commit has it, removing those it lacks: for a change of a clean store
    /// that failed part way.
    func putBackStoreFiles() throws {
        let changed = try git.status(under: StoreLayout.folders).filter(\.isStoreFile)
        let tracked = changed.filter { $0.kind != .new }.map(\.path)
        for entry in changed where entry.kind == .new {
            try? FileManager.default.removeItem(at: root.appendingPathComponent(entry.path))
        }
        if let head = try git.head(), !tracked.isEmpty { try git.checkout(head, force: true, only: tracked) }
    }
}

/// What an import did.
public struct ImportOutcome: Sendable {
    /// The commit made, if anything changed.
    public let commit: String?
    /// The commit's first line: "Import from Taskwarrior: add 3 todos, complete 1".
    public let summary: String
    /// Where the imported version met a different one in the store: the merge's decisions, also in the commit message.
    public let report: MergeReport
    /// What was skipped (only with the option that allows it).
    public let skipped: [ExchangeProblem]
    /// What the import kept without using, or did not carry (`ExchangeBatch.notes`).
    public var notes: [String] = []
}

extension Store {
    /// Brings `batch` into the store as one commit, item by item through the
    /// merge rules (with no common ancestor: where an item differs, the later
    /// `alterDate` wins each field, and what lost is recorded in the commit).
    /// Items already there unchanged stay unchanged, so importing the same file
    /// twice changes nothing. Refuses, changing nothing, while the store has
    /// uncommitted changes, or when the batch has problems and `skippingBad` is false.
    ///
    /// With `tool`, an item that the store last exported to that tool
    /// (`noteExport`), and that comes back no older than it went, is merged
    /// three ways against what went out, as a pull merges: a field the tool
    /// did not change keeps the store's value, however the two are dated.
    /// A value the merge discarded is listed by `merges`, and `restoreLost` puts it back.
    public func importBatch(
        _ batch: ExchangeBatch, from source: String, skippingBad: Bool = false,
        option: String = "--skip-bad", tool: String? = nil
    ) throws -> ImportOutcome {
        if !batch.problems.isEmpty && !skippingBad { throw ImportRefused(problems: batch.problems, option: option) }
        return try withLock {
            try finishInterruptedUpdate()
            try refuseUnfinishedGitOperation()
            guard try git.status(under: StoreLayout.folders).filter(\.isStoreFile).isEmpty else {
                throw StoreError.state(.uncommittedChanges)
            }
            var incoming = batch.state
            // NB: the next instance of each repeating todo is read too, so a completion that makes it finds one already
            // there.
            let nextIDs = incoming.todos.filter { batch.completes($0) }.compactMap { $0.recurrence?.nextID }
            // NB: each once: a completed instance's next is often a line of the file too, and an item read twice
            // would be written twice at once.
            var listed = Set<UUID>()
            let ids = (incoming.todos.map(\.id) + incoming.removed.map(\.id) + nextIDs).filter {
                listed.insert($0).inserted
            }
            let taskIDs = incoming.projects.flatMap { $0.tasks.map(\.id) }
            let before = try snapshot(
                todos: ids, projects: incoming.projects.map(\.id) + incoming.removed.compactMap(\.projectID),
                tombstones: ids + taskIDs + incoming.projects.map(\.id))
            // What went out to the tool, for each item that comes back no older than it went: the base of a three-way
            // merge.
            let exported = tool.flatMap { lastExport(to: $0) }.map { Store.calendarEntries($0, allTasks: true) } ?? [:]
            func second(_ date: Date?) -> Int64 { Int64((date ?? .distantPast).timeIntervalSince1970.rounded(.down)) }
            // NB: in the order the tool gives, with the tool's project fields: it says nothing of either, so neither is
            // its change.
            // An item the tool removed goes out as it was sent: its removal is then the tool's one change, not a
            // conflict.
            let removedIDs = Set(incoming.removed.map(\.id))
            var baseTodos = incoming.todos.compactMap { back -> TodoItem? in
                guard case let .todo(sent)? = exported[back.id], second(back.alterDate) >= second(sent.alterDate) else {
                    return nil
                }
                return sent
            }
            for tombstone in incoming.removed where !batch.inferredRemovals.contains(tombstone.id) {
                if case let .todo(sent)? = exported[tombstone.id] { baseTodos.append(sent) }
            }
            let baseProjects = incoming.projects.compactMap { project -> Project? in
                var tasks = project.tasks.compactMap { back -> ProjectTask? in
                    guard case let .task(sent, _)? = exported[back.id], second(back.alterDate) >= second(sent.alterDate)
                    else { return nil }
                    return sent
                }
                for tombstone in incoming.removed
                where tombstone.projectID == project.id && removedIDs.contains(tombstone.id) {
                    if case let .task(sent, _)? = exported[tombstone.id] { tasks.append(sent) }
                }
                return tasks.isEmpty
                    ? nil : Project(id: project.id, title: project.title, tasks: tasks, alterDate: project.alterDate)
            }
            let base =
                baseTodos.isEmpty && baseProjects.isEmpty
                ? nil : AppState(todos: baseTodos, projects: baseProjects, removed: [])
            if let base { incoming = Store.settling(incoming, against: base, clockAsStart: batch.clockAsStart) }
            incoming = Store.settling(incoming, against: before.state, clockAsStart: batch.clockAsStart)
            let merged = merge(base: base, ours: before.state, theirs: incoming)
            // NB: a tombstone for an item the store never had changes nothing: it is not kept.
            let known = Set(
                before.state.todos.map(\.id) + before.state.projects.flatMap { [$0.id] + $0.tasks.map(\.id) }
                    + before.state.removed.map(\.id))
            // NB: nor does a project brought only to carry such a tombstone.
            var result = AppState(
                todos: merged.state.todos,
                projects: merged.state.projects.filter { !$0.tasks.isEmpty || known.contains($0.id) },
                removed: merged.state.removed.filter { known.contains($0.id) })
            if batch.completesSeries || batch.completesUndatedSeries {
                // An instance the other tool completed has its next, as `docket done` makes it.
                let open = Set(before.state.todos.filter { !$0.completed }.map(\.id))
                for todo in result.todos where todo.completed && open.contains(todo.id) && batch.completes(todo) {
                    guard let next = todo.nextOccurrence(done: todo.completedDate ?? DocketClock.now),
                        result.todo(id: next.id) == nil,
                        result.tombstone(id: next.id) == nil
                    else { continue }
                    result = result.alter(by: .adding(.todo(next)))
                }
            }
            guard result != before.state else {
                if tool == "todotxt" { noteTodoTxtLines(batch.state.todos.map(\.id)) }
                // NB: what lost to a later edit in the store is said with the summary (`report`), not committed: the
                // same file read again would record it again.
                let summary =
                    merged.report.lostValues.isEmpty
                    ? "the store already has it all." : "the store's later edits outweigh what it changed:"
                return ImportOutcome(
                    commit: nil, summary: "Nothing to import from \(source): " + summary,
                    report: merged.report, skipped: batch.problems, notes: batch.notes)
            }
            // The record first (its decisions, what it skipped and kept, and the sides a lost value comes back from: a
            // killed import leaves it for the next commit), then the files, then the commit that carries it.
            var notes = batch.problems.map { "- " + $0.skippedLine }
            if !batch.notes.isEmpty { notes += (notes.isEmpty ? [] : [""]) + batch.notes }
            try notePendingRecord(
                title: "Import from \(source)", report: merged.report, notes: notes,
                theirs: merged.report.lostValues.isEmpty ? nil : Store.calendarEntries(incoming, allTasks: true),
                side: "The side of an import from \(source)")
            // All or nothing: an import that cannot write every file puts back those it wrote (the store was clean),
            // and one that is committed is undone as one step.
            let recorded = recordForUndo(action: "import from \(source)", before: before.state, after: result)
            do {
                try write(from: before, to: result)
            } catch {
                if let recorded { dropUndoEntry(recorded) }
                clearPendingRecord()
                try? putBackStoreFiles()
                throw error
            }
            Fault.point("after-import-files")
            let outcome = try commitHoldingLock(message: nil)
            if tool == "todotxt" { noteTodoTxtLines(batch.state.todos.map(\.id)) }
            guard case let .committed(id, message) = outcome else {
                return ImportOutcome(
                    commit: nil, summary: "Import from \(source)", report: merged.report, skipped: batch.problems,
                    notes: batch.notes)
            }
            let summary = String(message.prefix { $0 != "\n" })
            return ImportOutcome(
                commit: id, summary: summary, report: merged.report, skipped: batch.problems, notes: batch.notes)
        }
    }
}

extension Store {
    /// `incoming` with each item that says what the store's item says, to the
    /// second another tool keeps, given as the store has it: its dates and
    /// its notes (an annotation of a note's text and second is that note), and
    /// the whole item where only its alter date differs (a tool that dates
    /// every task it imports). So an export read back changes nothing.
    static func settling(_ incoming: AppState, against stored: AppState, clockAsStart: Bool = false) -> AppState {
        let todos = Dictionary(stored.todos.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let tasks = Dictionary(stored.projects.flatMap(\.tasks).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        return AppState(
            todos: incoming.todos.map { todo in todos[todo.id].map { settled(todo, as: $0) } ?? todo },
            projects: incoming.projects.map { project in
                Project(
                    id: project.id, title: project.title,
                    tasks: project.tasks.map { task in
                        tasks[task.id].map { settled(clockAsStart ? settledClock(task, as: $0) : task, as: $0) }
                            ?? task
                    },
                    alterDate: project.alterDate)
            },
            removed: incoming.removed)
    }

    /// A task from a tool that says its clock only by a start (Taskwarrior) with the store's slips: a running slip
    /// the tool names by the second a stored slip starts is that slip, another is added; and a stored slip still
    /// running that the tool, edited since it started, no longer names (`task stop`, `task done`) is stopped at that
    /// edit.
    static func settledClock(_ task: ProjectTask, as stored: ProjectTask) -> ProjectTask {
        func second(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
        var slips = stored.timeSlips
        for slip in task.timeSlips where !stored.timeSlips.contains(where: { second($0.start) == second(slip.start) }) {
            slips.append(slip)
        }
        if task.runningSlip == nil, let running = stored.runningSlip, let edited = task.alterDate,
            second(edited) > second(running.start)
        {
            let stop = max(task.state == .finished ? task.completedDate ?? edited : edited, running.start)
            slips = slips.map { $0.id == running.id ? running.alter(.setting(.stop(to: stop))) : $0 }
        }
        // NB: Docket's clock runs on an unfinished task too; Taskwarrior's `start` for it says no new state.
        let state =
            task.state == .inProgress && stored.state == .unfinished
                && task.runningSlip.map { slip in stored.runningSlip.map { second($0.start) == second(slip.start) } }
                    == true
            ? stored.state : task.state
        return task.replacing(state: state, timeSlips: slips)
    }

    private static func settled<Item: FieldCoded>(_ item: Item, as stored: Item) -> Item {
        func second(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
        var item = item
        for field in Item.fields {
            switch (field.value(of: item), field.value(of: stored)) {
            case let (a as Date, b as Date) where second(a) == second(b):
                item = field.copy(from: stored, into: item)
            case let (a as Date?, b as Date?) where a.map(second) == b.map(second):
                item = field.copy(from: stored, into: item)
            case let (a as [Note], b as [Note]):
                // NB: Taskwarrior keys annotations by their second, moving one that shares it a second on.
                var unmatched = b
                let notes = a.map { note -> Note in
                    guard
                        let index = unmatched.firstIndex(where: {
                            $0.text == note.text && abs(second($0.date) - second(note.date)) <= 60
                        })
                    else { return note }
                    return unmatched.remove(at: index)
                }
                item = field.setting(notes, in: item)
            default: continue
            }
        }
        let contentSame = Item.fields.allSatisfy { $0.key == "alterDate" || $0.isSame(item, stored) }
        return contentSame ? stored : item
    }
}

extension Store {
    /// Notes what an export to `tool` ("taskwarrior", "todotxt") wrote, as the base its next import is merged against.
    public func noteExport(to tool: String, _ state: AppState) {
        guard let path = try? localFile("exported-\(tool).json").path, let data = try? JSONEncoder().encode(state)
        else { return }
        // NB: an export that cannot note what it wrote still writes it; the next import then merges without a base.
        try? AtomicFile.write(data, to: path, durable: false)
    }

    /// The todos whose lines a todo.txt held when Docket last wrote one (`docket export todotxt`) or, if later, read
    /// one (each todo.txt import notes the lines it read): those a later import finds gone were deleted or replaced.
    public func todoTxtLines() -> Set<UUID> {
        func changed(_ name: String) -> Date {
            (try? localFile(name).path).flatMap { try? FileManager.default.attributesOfItem(atPath: $0) }?[
                .modificationDate] as? Date ?? .distantPast
        }
        guard changed("read-todotxt.json") >= changed("exported-todotxt.json"),
            let path = try? localFile("read-todotxt.json").path, let data = try? Folder.readFile(path, limit: 1 << 30),
            let read = try? JSONDecoder().decode([UUID].self, from: data)
        else { return Set(lastExport(to: "todotxt")?.todos.map(\.id) ?? []) }
        return Set(read)
    }

    /// Notes the todos whose lines an import of a todo.txt read, for `todoTxtLines`.
    func noteTodoTxtLines(_ ids: [UUID]) {
        guard let path = try? localFile("read-todotxt.json").path, let data = try? JSONEncoder().encode(ids) else {
            return
        }
        try? AtomicFile.write(data, to: path, durable: false)
    }

    /// Whether the store was ever exported to `tool`.
    func hasExported(to tool: String) -> Bool {
        (try? localFile("exported-\(tool).json")).map { FileManager.default.fileExists(atPath: $0.path) } ?? false
    }

    /// What the last export to `tool` wrote, if noted.
    public func lastExport(to tool: String) -> AppState? {
        guard let path = try? localFile("exported-\(tool).json").path,
            let data = try? Folder.readFile(path, limit: 1 << 30)
        else { return nil }
        return try? JSONDecoder().decode(AppState.self, from: data)
    }
}
