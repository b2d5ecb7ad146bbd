import DocketMerge
import DocketModel
import DocketSystem
import Foundation

/// What a calendar sync did.
public struct CalendarSyncOutcome: Sendable {
    /// Items the calendar side added, changed or removed, now in the store (not yet committed).
    public var storeChanges = 0
    /// Files written in the folder (new or changed).
    public var filesWritten = 0
    /// Files removed from the folder.
    public var filesRemoved = 0
    /// Where both sides changed an item: the merge's decisions.
    public var report = MergeReport(items: [])
    /// Files skipped (only with the option that allows it); each is left as it is, and so is its item.
    public var skipped: [ExchangeProblem] = []
}

/// The state of one folder's sync, kept in `.git/docket/`: the items as both sides last agreed on them, and each one's file.
struct CalendarSyncState: Codable {
    var base: AppState
    var files: [String: String]
}

extension Store {
    private static let calendarFileLimit = 1 << 20
    private static let calendarStateLimit = 1 << 30

    /// Keeps a folder of `.ics` files (a vdir, as vdirsyncer and todoman keep
    /// one) in step with the store in both directions: each todo, and each
    /// project task with a due date, is a file `<id>.ics` holding one VTODO.
    /// An item added, edited, completed or removed in the folder comes back
    /// as an edit in the store (uncommitted, like any command's), merged by
    /// Docket's rules against what changed in the store since the last sync;
    /// files are written for what changed in the store. A file that does not
    /// read stops the sync, changing nothing, unless `skippingBad`: then it
    /// and its item are left as they are.
    public func syncCalendar(folder path: String, skippingBad: Bool = false, now: Date = DocketClock.now) throws -> CalendarSyncOutcome {
        try withLockFinishingUpdate {
            let folder: Folder
            do {
                folder = try Folder.open(path)
            } catch {
                throw StoreError.input(.calendarFolder(path: path))
            }
            let stateName = "ical-" + NameBasedID.make(namespace: VTodo.namespace, name: "folder " + path).uuidString.lowercased() + ".json"
            let statePath = try localFile(stateName).path
            var state = CalendarSyncState(base: AppState(), files: [:])
            let afresh = "remove it to sync afresh (no item is lost: an item on both sides is merged)"
            do {
                let data = try Folder.readFile(statePath, limit: Store.calendarStateLimit)
                guard let read = try? JSONDecoder().decode(CalendarSyncState.self, from: data) else {
                    throw StoreError.io(.read(path: statePath, reason: "it is not a calendar sync's state; " + afresh))
                }
                state = read
            } catch FileProblem.missing {
                // The first sync of this folder.
            } catch let problem as FileProblem {
                throw StoreError.io(.read(path: statePath, reason: "it \(problem); " + afresh))
            }
            let snapshot = try load()
            let ours = snapshot.state
            let oursTasks = Dictionary(ours.projects.flatMap { p in p.tasks.map { ($0.id, CalendarEntry.task($0, project: p.id)) } }, uniquingKeysWith: { a, _ in a })
            let oursTodos = Dictionary(ours.todos.map { ($0.id, CalendarEntry.todo($0)) }, uniquingKeysWith: { a, _ in a })
            let baseTasks = Dictionary(state.base.projects.flatMap { p in p.tasks.map { ($0.id, CalendarEntry.task($0, project: p.id)) } }, uniquingKeysWith: { a, _ in a })
            let baseTodos = Dictionary(state.base.todos.map { ($0.id, CalendarEntry.todo($0)) }, uniquingKeysWith: { a, _ in a })
            func previous(_ id: UUID) -> CalendarEntry? { baseTodos[id] ?? baseTasks[id] ?? oursTodos[id] ?? oursTasks[id] }

            // The folder's side
            var problems: [ExchangeProblem] = []
            var files: [UUID: (name: String, calendar: ICalComponent, uid: String)] = [:]
            var theirs: [UUID: CalendarEntry] = [:]
            var held = Set<UUID>()
            let names = try StoreError.gate(writing: false) { try folder.entries() }.filter { !$0.isFolder && $0.name.hasSuffix(".ics") }.map(\.name).sorted()
            for name in names {
                let shown = (path as NSString).appendingPathComponent(name)
                func skip(_ reason: String) { problems.append(ExchangeProblem(file: shown, reason: reason, skipped: "that file")) }
                let data: Data
                do { data = try folder.read(name, limit: Store.calendarFileLimit) } catch { skip("it \(error)"); continue }
                guard let text = String(validating: data, as: UTF8.self) else { skip("it is not UTF-8 text"); continue }
                do {
                    let calendar = try ICalComponent.parse(text)
                    let (vtodo, uid) = try VTodo.vtodo(in: calendar)
                    let id = VTodo.id(uid: uid)
                    guard files[id] == nil, !held.contains(id) else { skip("its UID \(uid.prefix(40)) is also in another file"); continue }
                    do {
                        let fields = try VTodo.fields(vtodo)
                        files[id] = (name, calendar, uid)
                        theirs[id] = VTodo.entry(fields, id: id, previous: previous(id), now: now)
                    } catch let problem as VTodo.Unreadable {
                        held.insert(id)
                        problems.append(ExchangeProblem(file: shown, place: "todo '\(vtodo.property("SUMMARY")?.text.prefix(40) ?? "")'", reason: problem.reason,
                                                        skipped: "that file"))
                    }
                } catch let problem as VTodo.Unreadable {
                    skip(problem.reason)
                } catch let ICalComponent.Problem.unreadable(reason) {
                    skip("it is not iCalendar: \(reason)")
                }
            }
            if !problems.isEmpty && !skippingBad { throw ImportRefused(problems: problems, option: "--skip-bad", action: "sync") }

            // The three states: as last agreed, the store's, the folder's.
            var theirsTodos: [TodoItem] = []
            var theirsTasks: [UUID: [ProjectTask]] = [:]
            var removed: [Tombstone] = []
            for id in Set(baseTodos.keys).union(baseTasks.keys).union(theirs.keys) {
                let entry: CalendarEntry?
                if held.contains(id) { entry = baseTodos[id] ?? baseTasks[id] } else { entry = theirs[id] }
                switch entry {
                case let .todo(todo)?: theirsTodos.append(todo)
                case let .task(task, project)?: theirsTasks[project, default: []].append(task)
                case nil:
                    // In the last sync, no file now: removed on the calendar side.
                    if case let .task(_, project)? = baseTasks[id] {
                        removed.append(Tombstone(id: id, kind: .task, projectID: project, removedDate: now))
                    } else {
                        removed.append(Tombstone(id: id, kind: .todo, removedDate: now))
                    }
                }
            }
            let headers = Dictionary(state.base.projects.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
                .merging(ours.projects.map { ($0.id, $0) }, uniquingKeysWith: { _, b in b })
            let theirsProjects = Set(theirsTasks.keys).union(removed.compactMap(\.projectID)).union(state.base.projects.map(\.id)).compactMap { id -> Project? in
                guard let header = headers[id] else { return nil }
                return Project(id: id, title: header.title, tasks: theirsTasks[id] ?? [], alterDate: header.alterDate)
            }
            // NB: in the store's project order, so the merge keeps it.
            let rank = Dictionary(ours.projects.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
            let theirsState = AppState(todos: theirsTodos, projects: theirsProjects.sorted { (rank[$0.id] ?? .max) < (rank[$1.id] ?? .max) },
                                       removed: removed)
            let merged = merge(base: state.base, ours: ours, theirs: theirsState)
            var outcome = CalendarSyncOutcome(report: merged.report, skipped: problems)

            // The store's side
            let result = merged.state
            if result != ours {
                try write(from: snapshot, to: result)
                outcome.storeChanges = Store.changedItems(from: ours, to: result)
            }

            // The folder's side, and the new common state
            var synced: [CalendarEntry] = result.todos.map { .todo($0) }
            for project in result.projects {
                for task in project.tasks where task.dueDate.date != nil { synced.append(.task(task, project: project.id)) }
            }
            var keep = Set<UUID>()
            for entry in synced {
                let id = entry.id
                keep.insert(id)
                if held.contains(id) { continue }
                let existing = files[id]
                if let theirsEntry = theirs[id], theirsEntry == entry { continue }
                if let theirsEntry = theirs[id], VTodo.sameContent(theirsEntry, entry) { continue }
                let name = existing?.name ?? state.files[id.uuidString] ?? id.uuidString.lowercased() + ".ics"
                let calendar = VTodo.file(entry, existing: existing?.calendar, uid: existing?.uid)
                try StoreError.gate(writing: true) { try folder.write(Data(calendar.text.utf8), to: name, durable: false) }
                outcome.filesWritten += 1
                state.files[id.uuidString] = name
            }
            for (id, file) in files where !keep.contains(id) {
                try StoreError.gate(writing: true) { try folder.remove(file.name) }
                outcome.filesRemoved += 1
            }
            for (id, file) in files { if keep.contains(id) { state.files[id.uuidString] = file.name } }
            let agreedTodos = result.todos.filter { keep.contains($0.id) }
            let baseProjects = result.projects.compactMap { project -> Project? in
                let tasks = project.tasks.filter { $0.dueDate.date != nil }
                return tasks.isEmpty ? nil : Project(id: project.id, title: project.title, tasks: tasks, alterDate: project.alterDate)
            }
            // NB: a held file's item stays as last agreed, so its next good read is weighed against that.
            let heldBase = state.base.todos.filter { held.contains($0.id) && !keep.contains($0.id) }
            state = CalendarSyncState(base: AppState(todos: agreedTodos + heldBase, projects: baseProjects, removed: []),
                                      files: state.files.filter { keep.contains(UUID(uuidString: $0.key) ?? .zero) })
            let encoded = try JSONEncoder().encode(state)
            try StoreError.gate(writing: true) { try AtomicFile.write(encoded, to: statePath, durable: true) }
            return outcome
        }
    }

    /// Every todo, and every project task with a due date, as one VCALENDAR for subscribing to (read-only).
    public func calendarExport() throws -> (text: String, problems: [StoreProblem]) {
        let snapshot = try load()
        var calendar = ICalComponent(name: "VCALENDAR", properties: [
            .init(name: "VERSION", parameters: "", value: "2.0"),
            .init(name: "PRODID", parameters: "", value: "-//Docket//Docket//EN"),
            .init(name: "X-WR-CALNAME", parameters: "", value: "Docket"),
        ])
        var entries: [CalendarEntry] = snapshot.state.todos.map { .todo($0) }
        for project in snapshot.state.projects {
            for task in project.tasks where task.dueDate.date != nil { entries.append(.task(task, project: project.id)) }
        }
        calendar.components = entries.map { ICalComponent(name: "VTODO", properties: VTodo.properties($0)) }
        return (calendar.text, snapshot.problems)
    }
}

extension Store {
    /// How many todos, projects and tasks differ between two states (added, changed or removed).
    static func changedItems(from old: AppState, to new: AppState) -> Int {
        func count<Item: Identifiable & Equatable>(_ a: [Item], _ b: [Item]) -> Int where Item.ID == UUID {
            let before = Dictionary(a.map { ($0.id, $0) }, uniquingKeysWith: { x, _ in x })
            let after = Set(b.map(\.id))
            return b.filter { before[$0.id] != $0 }.count + a.filter { !after.contains($0.id) }.count
        }
        let headers = count(old.projects.map { Project(id: $0.id, title: $0.title, tasks: [], alterDate: $0.alterDate) },
                            new.projects.map { Project(id: $0.id, title: $0.title, tasks: [], alterDate: $0.alterDate) })
        return count(old.todos, new.todos) + headers + count(old.projects.flatMap(\.tasks), new.projects.flatMap(\.tasks))
    }
}
