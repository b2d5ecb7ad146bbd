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
    /// Todos set aside while the rest synced, each with its reason (an RRULE Docket cannot keep): each file is left as
    /// it is, and so is its item. The first sync that sets one aside records it in its commit.
    public var setAside: [ExchangeProblem] = []
    /// The summaries of calendar apps' copies of a completed instance (todoman's) taken as the next instance Docket
    /// had already made: what each copy changed went to that instance, and its file was removed, so the calendar
    /// holds one todo for that occurrence.
    public var copiesTaken: [String] = []
}

/// One version of an item both sides agreed on, under the stamp its file carried.
struct CalendarVersion: Codable {
    var stamp: String
    var todo: TodoItem?
    var task: ProjectTask?
    var project: UUID?

    init(stamp: String, entry: CalendarEntry) {
        self.stamp = stamp
        switch entry {
        case let .todo(todo): self.todo = todo
        case let .task(task, project): (self.task, self.project) = (task, project)
        }
    }

    var entry: CalendarEntry? {
        if let todo { return .todo(todo) }
        if let task, let project { return .task(task, project: project) }
        return nil
    }
}

/// The state of one folder's sync, kept in `.git/docket/`: the items as both
/// sides last agreed on them, each one's file, the versions each item's file
/// carried (so an edit is merged against the version the calendar side
/// started from), and the UIDs of a calendar's todos Docket took as another
/// id (the next instance of a series a calendar app made).
struct CalendarSyncState: Codable {
    var base: AppState
    var files: [String: String]
    var versions: [String: [CalendarVersion]] = [:]
    var uids: [String: String] = [:]
    /// The files set aside, as their record says them ("file: reason"), so each is recorded once.
    var aside: Set<String> = []

    /// How many versions of an item are kept: a calendar that edits a version older than these is merged against the
    /// last agreed.
    static let keptVersions = 16

    init(base: AppState, files: [String: String]) {
        self.base = base
        self.files = files
    }

    private enum CodingKeys: String, CodingKey { case base, files, versions, uids, aside }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        base = try c.decode(AppState.self, forKey: .base)
        files = try c.decode([String: String].self, forKey: .files)
        versions = try c.decodeIfPresent([String: [CalendarVersion]].self, forKey: .versions) ?? [:]
        uids = try c.decodeIfPresent([String: String].self, forKey: .uids) ?? [:]
        aside = try c.decodeIfPresent(Set<String>.self, forKey: .aside) ?? []
    }

    /// The version a file stamped `stamp` was written from, if it is kept. A file without a stamp (one a calendar
    /// app made, or an app that drops the stamp) started from the last version Docket read without one.
    func version(_ id: UUID, stamp: String?) -> CalendarEntry? {
        let stamp = stamp ?? ""
        return versions[id.uuidString]?.last { $0.stamp == stamp }?.entry
    }

    /// Keeps `entry` as the version a file stamped `stamp` now holds.
    mutating func keep(_ entry: CalendarEntry, stamp: String) {
        var list = versions[entry.id.uuidString] ?? []
        if let last = list.last, last.stamp == stamp, last.entry == entry { return }
        list.append(CalendarVersion(stamp: stamp, entry: entry))
        versions[entry.id.uuidString] = Array(list.suffix(Self.keptVersions))
    }
}

extension Store {
    private static let calendarFileLimit = 1 << 20
    private static let calendarStateLimit = 1 << 30

    /// Keeps a folder of `.ics` files (a vdir, as vdirsyncer and todoman keep
    /// one) in step with the store in both directions: each todo, and each
    /// project task with a due date, is a file `<id>.ics` holding one VTODO.
    /// An item added, edited, completed, cancelled or removed in the folder
    /// comes back as an edit in the store, merged by Docket's rules against
    /// the version the calendar side started from (each file Docket writes
    /// carries its version's stamp); what the calendar changed is committed,
    /// with the merge's decisions recorded as a pull records them (`merges`,
    /// `restoreLost`) and kept for `undo`. Files are written for what changed
    /// in the store. A file that does not read stops the sync, changing
    /// nothing, unless `skippingBad`: then it and its item are left as they are.
    public func syncCalendar(folder path: String, skippingBad: Bool = false, now: Date = DocketClock.now) throws
        -> CalendarSyncOutcome
    {
        try withLockFinishingUpdate {
            let folder: Folder
            do {
                folder = try Folder.open(path)
            } catch {
                throw StoreError.input(.calendarFolder(path: path))
            }
            if pendingRecord() != nil { _ = try commitHoldingLock(message: nil) }
            let stateName =
                "ical-" + NameBasedID.make(namespace: VTodo.namespace, name: "folder " + path).uuidString.lowercased()
                + ".json"
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
            var pass = try calendarPass(folder: folder, path: path, state: state, skippingBad: skippingBad, now: now)
            if pass.result != pass.snapshot.state || !pass.report.lostValues.isEmpty,
                try !git.status(under: StoreLayout.folders).filter(\.isStoreFile).isEmpty
            {
                // What was pending is committed first, on its own, so the calendar's commit holds only the calendar's
                // changes.
                _ = try commitHoldingLock(message: nil)
                pass = try calendarPass(folder: folder, path: path, state: state, skippingBad: skippingBad, now: now)
            }
            state = pass.state
            var outcome = CalendarSyncOutcome(report: pass.report, skipped: pass.problems)
            outcome.setAside = pass.aside
            let ours = pass.snapshot.state
            let result = pass.result

            // The store's side: the record first, then the files, then the commit that carries the record (also of a
            // value the calendar lost where the store did not change, of an edit kept over a cancellation, and of a
            // todo set aside for the first time).
            let newlyAside = pass.aside.map(\.description).filter { !state.aside.contains($0) }
            let recording =
                result != ours || !pass.report.lostValues.isEmpty
                || pass.report.items.contains { $0.removal != nil } || !newlyAside.isEmpty
            if recording {
                let title = "Calendar sync (\((path as NSString).lastPathComponent))"
                try notePendingRecord(
                    title: title, report: pass.report,
                    notes: newlyAside.map { "- Set aside, the rest synced: " + $0 },
                    theirs: pass.report.isEmpty ? nil : pass.theirs,
                    side: "The calendar's side of a calendar sync")
                if result != ours {
                    let action = "ical sync " + ((path as NSString).lastPathComponent)
                    let recorded = recordForUndo(action: action, before: ours, after: result)
                    do {
                        try write(from: pass.snapshot, to: result)
                    } catch {
                        if let recorded { dropUndoEntry(recorded) }
                        throw error
                    }
                    outcome.storeChanges = Store.changedItems(from: ours, to: result)
                }
                Fault.point("after-calendar-store")
            }

            // The folder's side, and the new common state
            var synced: [CalendarEntry] = result.todos.map { .todo($0) }
            for project in result.projects {
                for task in project.tasks where task.dueDate.date != nil {
                    synced.append(.task(task, project: project.id))
                }
            }
            var keep = Set<UUID>()
            for entry in synced {
                let id = entry.id
                keep.insert(id)
                if pass.held.contains(id) { continue }
                let existing = pass.files[id]
                if !pass.stale.contains(id), let theirsEntry = pass.theirs[id],
                    theirsEntry == entry || VTodo.sameContent(theirsEntry, entry)
                {
                    // NB: a file without a stamp is kept under none: its next edit on the calendar side started from
                    // it.
                    if let existing { state.keep(entry, stamp: existing.stamp ?? "") }
                    continue
                }
                // NB: the file as the calendar side had it stays the version its stamp names: should it come back
                // (vdirsyncer keeping the server's side over the file written here), an edit made to it since is
                // merged against what was read, not against the older version Docket once wrote under that stamp.
                if let existing, let theirsEntry = pass.theirs[id] {
                    state.keep(theirsEntry, stamp: existing.stamp ?? "")
                }
                let name = existing?.name ?? state.files[id.uuidString] ?? id.uuidString.lowercased() + ".ics"
                let calendar = VTodo.file(
                    entry, existing: existing?.calendar, uid: existing?.uid,
                    uidOf: { pass.files[$0]?.uid ?? $0.uuidString.lowercased() })
                try StoreError.gate(writing: true) {
                    try folder.write(Data(calendar.text.utf8), to: name, durable: false)
                }
                outcome.filesWritten += 1
                state.files[id.uuidString] = name
                state.keep(entry, stamp: VTodo.stamp(entry))
            }
            for (id, file) in pass.files where !keep.contains(id) && !pass.ignored.contains(id) {
                try StoreError.gate(writing: true) { try folder.remove(file.name) }
                outcome.filesRemoved += 1
            }
            for copy in pass.copies {
                try StoreError.gate(writing: true) { try folder.remove(copy.name) }
                outcome.filesRemoved += 1
            }
            outcome.copiesTaken = pass.copies.map(\.summary)
            for (id, file) in pass.files { if keep.contains(id) { state.files[id.uuidString] = file.name } }
            let agreedTodos = result.todos.filter { keep.contains($0.id) }
            let baseProjects = result.projects.compactMap { project -> Project? in
                let tasks = project.tasks.filter { $0.dueDate.date != nil }
                return tasks.isEmpty
                    ? nil : Project(id: project.id, title: project.title, tasks: tasks, alterDate: project.alterDate)
            }
            // NB: a held file's item stays as last agreed, so its next good read is weighed against that.
            let heldBase = state.base.todos.filter { pass.held.contains($0.id) && !keep.contains($0.id) }
            let kept = Set(keep.map(\.uuidString))
            var next = CalendarSyncState(
                base: AppState(todos: agreedTodos + heldBase, projects: baseProjects, removed: []),
                files: state.files.filter { kept.contains($0.key) })
            next.versions = state.versions.filter { kept.contains($0.key) }
            next.uids = state.uids.filter { kept.contains($0.value) }
            next.aside = Set(pass.aside.map(\.description))
            let encoded = try JSONEncoder().encode(next)
            try StoreError.gate(writing: true) { try AtomicFile.write(encoded, to: statePath, durable: true) }
            Fault.point("after-calendar-folder")
            if recording { _ = try commitHoldingLock(message: nil) }
            return outcome
        }
    }

    /// What one reading of the folder gives: the three states, the merge, and the files read.
    private struct CalendarPass {
        var snapshot: StoreSnapshot
        var state: CalendarSyncState
        var theirs: [UUID: CalendarEntry]
        var theirsState: AppState
        var result: AppState
        var report: MergeReport
        var problems: [ExchangeProblem]
        var aside: [ExchangeProblem]
        var files: [UUID: (name: String, calendar: ICalComponent, uid: String, stamp: String?)]
        var held: Set<UUID>
        var ignored: Set<UUID>
        /// The files of copies taken as the next instance Docket had made (`CalendarSyncOutcome.copiesTaken`), to remove.
        var copies: [(name: String, summary: String)]
        /// The items whose `theirs` took a copy's change their own file does not say yet: written whatever the merge.
        var stale: Set<UUID>
    }

    private func calendarPass(folder: Folder, path: String, state: CalendarSyncState, skippingBad: Bool, now: Date)
        throws -> CalendarPass
    {
        var state = state
        let snapshot = try load()
        let ours = snapshot.state
        let oursEntries = Store.calendarEntries(ours, allTasks: true)
        let agreed = Store.calendarEntries(state.base, allTasks: true)

        // The folder's side
        var problems: [ExchangeProblem] = []
        var aside: [ExchangeProblem] = []
        var files: [UUID: (name: String, calendar: ICalComponent, uid: String, stamp: String?)] = [:]
        var theirs: [UUID: CalendarEntry] = [:]
        var bases = agreed
        var held = Set<UUID>()
        var ignored = Set<UUID>()
        var cancelled: [UUID: Date] = [:]
        // A copy taken as the next instance Docket had made, back again (edited on the phone, vdirsyncer keeps that
        // over the removal), beside that instance's own file.
        var copiesBack: [UUID: (name: String, uid: String, entry: CalendarEntry, cancelled: Date?)] = [:]
        var copies: [(name: String, summary: String)] = []
        var stale = Set<UUID>()
        // NB: a file for a todo the store removed (edited on the phone, vdirsyncer keeps that over the removal) is read
        // over the todo as last committed: what a VTODO cannot say (a done instance's series, say) comes back with it.
        var removedVersions: [UUID: CalendarEntry]?
        func removedVersion(_ id: UUID) -> CalendarEntry? {
            guard ours.removed.contains(where: { $0.id == id }) else { return nil }
            if removedVersions == nil {
                let items = (try? removedItems().items) ?? []
                removedVersions = Dictionary(
                    items.compactMap { item -> (UUID, CalendarEntry)? in
                        guard case let .todo(todo, _) = item else { return nil }
                        return (todo.id, .todo(todo))
                    }, uniquingKeysWith: { a, _ in a })
            }
            return removedVersions?[id]
        }
        let names = try StoreError.gate(writing: false) { try folder.entries() }.filter {
            !$0.isFolder && $0.name.hasSuffix(".ics")
        }.map(\.name).sorted()
        for name in names {
            let shown = (path as NSString).appendingPathComponent(name)
            func skip(_ reason: String) {
                problems.append(ExchangeProblem(file: shown, reason: reason, skipped: "that file"))
            }
            let data: Data
            do { data = try folder.read(name, limit: Store.calendarFileLimit) } catch {
                skip("it \(error)")
                continue
            }
            guard let text = String(validating: data, as: UTF8.self) else {
                skip("it is not UTF-8 text")
                continue
            }
            do {
                let calendar = try ICalComponent.parse(text)
                let (vtodo, uid) = try VTodo.vtodo(in: calendar)
                let id = state.uids[uid].flatMap(UUID.init(hex:)) ?? VTodo.id(uid: uid)
                if let own = state.files[id.uuidString], own != name, names.contains(own), state.uids[uid] != nil,
                    let fields = try? VTodo.fields(vtodo)
                {
                    let entry = VTodo.entry(fields, id: id, previous: nil, now: now)
                    copiesBack[id] = (
                        name, uid, entry, fields.status == "CANCELLED" ? fields.lastModified ?? now : nil
                    )
                    continue
                }
                guard files[id] == nil, !held.contains(id) else {
                    skip("its UID \(uid.prefix(40)) is also in another file")
                    continue
                }
                let stamp = vtodo.property(VTodo.stampName)?.value.trimmingCharacters(in: .whitespaces)
                // The version the calendar side started from: the one its file's stamp names, else the last agreed.
                if let started = state.version(id, stamp: stamp) { bases[id] = started }
                do {
                    var fields = try VTodo.fields(vtodo)
                    VTodo.applyOverrides(calendar, uid: uid, to: &fields)
                    files[id] = (name, calendar, uid, stamp)
                    if fields.status == "CANCELLED" {
                        // Cancelled on the calendar side: a removal of an item Docket has; one it never had is left
                        // alone.
                        if bases[id] != nil || oursEntries[id] != nil {
                            cancelled[id] = fields.lastModified ?? now
                        } else {
                            ignored.insert(id)
                        }
                        continue
                    }
                    theirs[id] = VTodo.entry(
                        fields, id: id, previous: bases[id] ?? oursEntries[id] ?? removedVersion(id), now: now)
                } catch let problem as VTodo.Unreadable {
                    held.insert(id)
                    let found = ExchangeProblem(
                        file: shown, place: "todo '\(vtodo.property("SUMMARY")?.text.prefix(40) ?? "")'",
                        reason: problem.reason, skipped: "that file")
                    // NB: a todo whose RRULE Docket cannot keep is set aside, as it is; the rest syncs.
                    if problem.isRule { aside.append(found) } else { problems.append(found) }
                }
            } catch let problem as VTodo.Unreadable {
                skip(problem.reason)
            } catch let ICalComponent.Problem.unreadable(reason) {
                skip("it is not iCalendar: \(reason)")
            }
        }
        if !problems.isEmpty && !skippingBad {
            throw ImportRefused(problems: problems, option: "--skip-bad", action: "sync")
        }

        // A calendar app completing one instance of a series (todoman drops the RRULE of the one it completes) keeps
        // the series,
        // and the next instance it made is Docket's next instance, not a new series.
        var completed: [TodoItem] = []
        var allDay: [UUID: CalendarDay] = [:]
        for (id, entry) in theirs {
            guard case let .todo(todo) = entry, todo.completed, case let .todo(was)? = bases[id], !was.completed,
                let recurrence = was.recurrence
            else { continue }
            let instance = todo.recurrence == nil ? todo.replacing(recurrence: .some(recurrence)) : todo
            theirs[id] = .todo(instance)
            completed.append(instance)
        }
        for (id, entry) in theirs.sorted(by: { $0.key.uuidString < $1.key.uuidString })
        where bases[id] == nil && oursEntries[id] == nil {
            // NB: the copy's summary may have been edited on the phone before Docket saw it: failing the text, the one
            // completed instance whose next due date the copy has is the one it follows.
            guard case let .todo(todo) = entry, !todo.completed, let every = todo.recurrence?.every,
                let index = completed.firstIndex(where: { $0.text == todo.text && $0.recurrence?.every == every })
                    ?? Store.onlyIndex(
                        completed.indices.filter {
                            completed[$0].recurrence?.every == every
                                && Store.isNextDue(
                                    todo.due, after: completed[$0], done: completed[$0].completedDate ?? now)
                        }),
                let series = completed[index].recurrence, let file = files[id]
            else { continue }
            // NB: todoman writes the copy's DUE as a time, at midnight (UTC, or the phone's own): the series of an
            // all-day todo stays all-day, and the file is written again so.
            var day: CalendarDay?
            if case .day = completed[index].due, case let .date(moment) = todo.due {
                day =
                    [DocketClock.timeZone, TimeZone(identifier: "UTC")!].lazy.map { (CalendarDay(moment, in: $0), $0) }
                    .first { $0.0.start(in: $0.1).docketMilliseconds == moment.docketMilliseconds }?.0
            }
            let instance = completed.remove(at: index)
            // NB: the next instance already there (Docket's own, of the same instance completed on its side too): the
            // copy stands for it, so the calendar holds one todo for that occurrence. What the phone changed in the
            // copy (its summary) goes to that instance; the copy's file goes (its item is none), and its UID names the
            // instance from now on: a dependency on it, or the copy brought back edited, is the instance's.
            if case .todo(var made)? = theirs[series.nextID] {
                if todo.text != instance.text {
                    made = Self.taking(["text"], from: todo, into: made)
                    stale.insert(series.nextID)
                }
                theirs[series.nextID] = .todo(made)
                theirs[id] = nil
                files[id] = nil
                state.uids[file.uid] = series.nextID.uuidString
                state.keep(.todo(todo.replacing(id: series.nextID)), stamp: Self.copyStamp(file.uid))
                copies.append((file.name, todo.text))
                continue
            }
            let next = todo.replacing(
                id: series.nextID,
                recurrence: .some(
                    Recurrence(
                        every: every, from: series.from, series: series.series,
                        occurrence: series.occurrence + 1, until: series.until)))
            if let day { allDay[next.id] = day }
            theirs[id] = nil
            theirs[next.id] = .todo(next)
            files[id] = nil
            files[next.id] = file
            state.uids[file.uid] = next.id.uuidString
        }
        for (id, back) in copiesBack.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
            // NB: its own file unread (set aside, say), the copy is left as it is.
            guard case .todo(let made)? = theirs[id], case let .todo(copy) = back.entry else { continue }
            if let date = back.cancelled {
                // Cancelled on the phone: a removal of the instance it stands for, as a cancelled file of its own is.
                theirs[id] = nil
                cancelled[id] = date
            } else if case let .todo(was)? = state.version(id, stamp: Self.copyStamp(back.uid)) {
                let changed = TodoItem.contentFields.filter { $0.key != "recurrence" && !$0.isSame(copy, was) }
                theirs[id] = .todo(Self.taking(changed.map(\.key), from: copy, into: made))
                if !changed.isEmpty { stale.insert(id) }
            }
            state.keep(back.entry, stamp: Self.copyStamp(back.uid))
            copies.append((back.name, copy.text))
        }

        // NB: a RELATED-TO names a UID; one Docket took as another item (a calendar app's copy, now a series' next
        // instance) stands for that item, not for the id its UID alone would make.
        let standIns = Dictionary(
            state.uids.compactMap { uid, id in
                UUID(hex: id).flatMap { $0 == VTodo.id(uid: uid) ? nil : (VTodo.id(uid: uid), $0) }
            }, uniquingKeysWith: { a, _ in a })
        if !standIns.isEmpty {
            for (id, entry) in theirs {
                switch entry {
                case let .todo(todo) where todo.dependencies.contains(where: { standIns[$0] != nil }):
                    let ids = Dependencies.normalized(todo.dependencies.map { standIns[$0] ?? $0 })
                    theirs[id] = .todo(todo.replacing(dependencies: ids))
                case let .task(task, project) where task.dependencies.contains(where: { standIns[$0] != nil }):
                    let ids = Dependencies.normalized(task.dependencies.map { standIns[$0] ?? $0 })
                    theirs[id] = .task(task.replacing(dependencies: ids), project: project)
                default: continue
                }
            }
        }

        // The three states: as the calendar side started, the store's, the folder's.
        var theirsEntries: [CalendarEntry] = []
        var removed: [Tombstone] = []
        for id in Set(bases.keys).union(theirs.keys).union(cancelled.keys) {
            let entry: CalendarEntry? = held.contains(id) ? bases[id] : theirs[id]
            if let entry {
                theirsEntries.append(entry)
                continue
            }
            // In the last sync, no file now (or a cancelled one): removed on the calendar side.
            let date = cancelled[id] ?? now
            if case let .task(_, project)? = bases[id] ?? oursEntries[id] {
                removed.append(Tombstone(id: id, kind: .task, projectID: project, removedDate: date))
            } else {
                removed.append(Tombstone(id: id, kind: .todo, removedDate: date))
            }
        }
        let headers = Dictionary(state.base.projects.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            .merging(ours.projects.map { ($0.id, $0) }, uniquingKeysWith: { _, b in b })
        // NB: in the store's project order, so the merge keeps it.
        var rank = Dictionary(ours.projects.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        for project in ours.projects {
            for (index, task) in project.tasks.enumerated() { rank[task.id] = rank[task.id] ?? index }
        }
        let extraProjects = Set(removed.compactMap(\.projectID)).union(state.base.projects.map(\.id))
        let theirsState = Store.calendarState(
            theirsEntries, removed: removed, headers: headers, rank: rank, projects: extraProjects)
        let baseState = Store.calendarState(
            Array(bases.values), removed: [], headers: headers, rank: rank, projects: [])
        let merged = merge(base: baseState, ours: ours, theirs: theirsState)

        // An instance completed on either side since the calendar started from it has its next instance, as `docket
        // done` makes.
        var result = merged.state
        for (id, day) in allDay {
            guard let todo = result.todo(id: id), case .date = todo.due else { continue }
            result = result.alter(by: .updating(.todo(todo.replacing(due: .day(day)))))
        }
        // NB: an instance of that number already there (one Taskwarrior made, with an id of its own) is the next one.
        var made: [UUID: Set<Int>] = [:]
        for todo in result.todos { if let r = todo.recurrence { made[r.series, default: []].insert(r.occurrence) } }
        for todo in result.todos where todo.completed && todo.recurrence != nil {
            guard case let .todo(was)? = bases[todo.id], !was.completed,
                let next = todo.nextOccurrence(done: todo.completedDate ?? now), result.todo(id: next.id) == nil,
                result.tombstone(id: next.id) == nil,
                made[todo.recurrence!.series]?.contains(todo.recurrence!.occurrence + 1) != true
            else { continue }
            result = result.alter(by: .adding(.todo(next)))
        }
        for project in result.projects {
            var updated = project
            for task in project.tasks where task.state == .finished && task.recurrence != nil {
                guard case let .task(was, _)? = bases[task.id], was.state != .finished,
                    let next = task.nextOccurrence(done: task.completedDate ?? now), updated.task(id: next.id) == nil,
                    result.tombstone(id: next.id) == nil
                else { continue }
                updated = updated.alter(by: .adding(.task(next)))
            }
            if updated != project { result = result.alter(by: .updating(.project(updated))) }
        }
        return CalendarPass(
            snapshot: snapshot, state: state, theirs: theirs, theirsState: theirsState, result: result,
            report: merged.report,
            problems: problems, aside: aside, files: files, held: held, ignored: ignored, copies: copies, stale: stale)
    }

    /// The version key under which a calendar app's copy taken as another item is kept: what it said when last read,
    /// so an edit of it is told from what it said.
    static func copyStamp(_ uid: String) -> String { "copy " + uid }

    /// `into` with the fields of these keys taken from `from`, dated no earlier than `from`.
    static func taking(_ keys: [String], from: TodoItem, into: TodoItem) -> TodoItem {
        guard !keys.isEmpty else { return into }
        var item = into
        for field in TodoItem.contentFields where keys.contains(field.key) { item = field.copy(from: from, into: item) }
        let dates = [into.alterDate, from.alterDate].compactMap { $0 }
        return item.replacing(alterDate: .some(dates.max()))
    }

    /// The one index of `indices`; nil for none or more than one.
    static func onlyIndex(_ indices: [Int]) -> Int? { indices.count == 1 ? indices[0] : nil }

    /// Whether `due` (a calendar app's copy's) is the next due date of the completed `instance`: the same day, the same
    /// moment, or, for a day, its midnight (UTC, or the local zone's), as todoman writes it.
    static func isNextDue(_ due: DueDate, after instance: TodoItem, done: Date) -> Bool {
        guard let next = instance.recurrence?.nextDue(due: instance.due, done: done) else { return false }
        switch (next, due) {
        case let (.day(day), .day(other)): return day == other
        case let (.day(day), .date(moment)):
            return [DocketClock.timeZone, TimeZone(identifier: "UTC")!].contains {
                day.start(in: $0).docketMilliseconds == moment.docketMilliseconds
            }
        case let (.date(a), .date(b)): return VTodo.sameSecond(.date(a), .date(b))
        default: return false
        }
    }

    /// Every todo of a state and each of its project's tasks (with a due date, unless `allTasks`), by id.
    static func calendarEntries(_ state: AppState, allTasks: Bool) -> [UUID: CalendarEntry] {
        var entries: [UUID: CalendarEntry] = [:]
        for project in state.projects {
            for task in project.tasks where allTasks || task.dueDate.date != nil {
                entries[task.id] = entries[task.id] ?? .task(task, project: project.id)
            }
        }
        for todo in state.todos { entries[todo.id] = entries[todo.id] ?? .todo(todo) }
        return entries
    }

    /// A state of these entries, their tasks under their projects' headers (and `projects` with none), projects and
    /// tasks in the store's order (`rank`, by id).
    static func calendarState(
        _ entries: [CalendarEntry], removed: [Tombstone], headers: [UUID: Project], rank: [UUID: Int],
        projects: Set<UUID>
    ) -> AppState {
        var todos: [TodoItem] = []
        var tasks: [UUID: [ProjectTask]] = [:]
        for entry in entries {
            switch entry {
            case let .todo(todo): todos.append(todo)
            case let .task(task, project): tasks[project, default: []].append(task)
            }
        }
        // NB: each project's tasks in the store's order too: a calendar says nothing of it, so it is not a calendar's
        // change.
        let made = Set(tasks.keys).union(projects).compactMap { id -> Project? in
            guard let header = headers[id] else { return nil }
            let ordered = (tasks[id] ?? []).sorted {
                (rank[$0.id] ?? .max, $0.id.uuidString) < (rank[$1.id] ?? .max, $1.id.uuidString)
            }
            return Project(id: id, title: header.title, tasks: ordered, alterDate: header.alterDate)
        }
        return AppState(
            todos: todos,
            projects: made.sorted { (rank[$0.id] ?? .max, $0.id.uuidString) < (rank[$1.id] ?? .max, $1.id.uuidString) },
            removed: removed)
    }

    /// Every todo, and every project task with a due date, as one VCALENDAR for subscribing to (read-only).
    public func calendarExport() throws -> (text: String, problems: [StoreProblem]) {
        let snapshot = try load()
        var calendar = ICalComponent(
            name: "VCALENDAR",
            properties: [
                .init(name: "VERSION", parameters: "", value: "2.0"),
                .init(name: "PRODID", parameters: "", value: "-//Docket//Docket//EN"),
                .init(name: "X-WR-CALNAME", parameters: "", value: "Docket"),
            ])
        var entries: [CalendarEntry] = snapshot.state.todos.map { .todo($0) }
        for project in snapshot.state.projects {
            for task in project.tasks where task.dueDate.date != nil {
                entries.append(.task(task, project: project.id))
            }
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
        let headers = count(
            old.projects.map { Project(id: $0.id, title: $0.title, tasks: [], alterDate: $0.alterDate) },
            new.projects.map { Project(id: $0.id, title: $0.title, tasks: [], alterDate: $0.alterDate) })
        return count(old.todos, new.todos) + headers
            + count(old.projects.flatMap(\.tasks), new.projects.flatMap(\.tasks))
    }
}
