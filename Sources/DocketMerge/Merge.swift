import DocketModel
import Foundation

/// The outcome of a merge: the merged state and the report of every decision.
public struct MergeResult: Hashable, Sendable {
    /// The merged state.
    public let state: AppState
    /// What the merge decided, item by item.
    public let report: MergeReport
}

/// Reconciles two concurrently edited states against their common ancestor.
///
/// Pure: it reads no clock and does no I/O, and it is symmetric, so two
/// machines that merge each other's states reach the same state:
/// `merge(base: b, ours: o, theirs: t).state == merge(base: b, ours: t, theirs: o).state`.
/// `base` is nil when the two histories share no ancestor; then every item
/// both sides hold with different content is merged as if both changed every field.
public func merge(base: AppState?, ours: AppState, theirs: AppState) -> MergeResult {
    var merger = StateMerger(base: base, ours: ours, theirs: theirs)
    return merger.run()
}

private struct StateMerger {
    let base: AppState?
    let ours: AppState
    let theirs: AppState
    var decisions: [ItemDecision] = []

    init(base: AppState?, ours: AppState, theirs: AppState) {
        self.base = base
        self.ours = ours
        self.theirs = theirs
    }

    mutating func run() -> MergeResult {
        let oursTombstones = index(ours.removed)
        let theirsTombstones = index(theirs.removed)

        let todos = mergeTodos(oursTombstones, theirsTombstones)
        let projects = mergeProjects(oursTombstones, theirsTombstones)

        // Tombstones: both sides' (the later date when both removed an item),
        // less those of items the merge kept.
        var present = Set(todos.map(\.id))
        for project in projects {
            present.insert(project.id)
            for task in project.tasks { present.insert(task.id) }
        }
        var tombstones = oursTombstones
        for (id, tombstone) in theirsTombstones {
            if let mine = tombstones[id], mine.removedDate.docketMilliseconds >= tombstone.removedDate.docketMilliseconds { continue }
            tombstones[id] = tombstone
        }
        let removed = tombstones.values.filter { !present.contains($0.id) }

        return MergeResult(state: AppState(todos: todos, projects: projects, removed: Array(removed)),
                           report: MergeReport(items: decisions))
    }

    // MARK: Todos

    mutating func mergeTodos(_ oursTombstones: [UUID: Tombstone], _ theirsTombstones: [UUID: Tombstone]) -> [TodoItem] {
        let baseTodos = index(base?.todos ?? [])
        let theirsTodos = index(theirs.todos)
        var merged: [TodoItem] = []
        merged.reserveCapacity(max(ours.todos.count, theirs.todos.count))
        var seen = Set<UUID>()
        seen.reserveCapacity(ours.todos.count)

        for o in ours.todos {
            seen.insert(o.id)
            let b = baseTodos[o.id]
            if let t = theirsTodos[o.id] {
                merged.append(mergeTodo(base: b, ours: o, theirs: t))
            } else if let kept = oneSided(o, on: .ours, base: b, otherTombstone: theirsTombstones[o.id]) {
                merged.append(kept)
            }
        }
        for t in theirs.todos where !seen.contains(t.id) {
            if let kept = oneSided(t, on: .theirs, base: baseTodos[t.id], otherTombstone: oursTombstones[t.id]) {
                merged.append(kept)
            }
        }
        return merged
    }

    mutating func mergeTodo(base b: TodoItem?, ours o: TodoItem, theirs t: TodoItem) -> TodoItem {
        if o == t { return o }
        if let b, b == o { return t }
        if let b, b == t { return o }
        var fields = FieldMerge(ours: o.alterDate, theirs: t.alterDate)
        let text = fields.pick("text", base: b.map(\.text), ours: o.text, theirs: t.text) { $0 }
        let completed = fields.pick("completed", base: b.map(\.completed), ours: o.completed, theirs: t.completed) { String($0) }
        let dueDate = fields.pick("dueDate", base: b.map(\.dueDate), ours: o.dueDate, theirs: t.dueDate, text: dateText)
        let creation = o.creationDate.docketMilliseconds <= t.creationDate.docketMilliseconds ? o.creationDate : t.creationDate
        let merged = TodoItem(id: o.id, text: text, creationDate: creation, completed: completed, dueDate: dueDate,
                              alterDate: later(o.alterDate, t.alterDate))
        if !fields.decisions.isEmpty {
            decisions.append(ItemDecision(kind: .todo, id: o.id, label: text, fields: fields.decisions))
        }
        return merged
    }

    // MARK: Projects and tasks

    mutating func mergeProjects(_ oursTombstones: [UUID: Tombstone], _ theirsTombstones: [UUID: Tombstone]) -> [Project] {
        let baseProjects = index(base?.projects ?? [])
        let oursProjects = index(ours.projects)
        let theirsProjects = index(theirs.projects)
        var merged: [UUID: Project] = [:]

        for o in ours.projects {
            let b = baseProjects[o.id]
            if let t = theirsProjects[o.id] {
                merged[o.id] = mergeProject(base: b, ours: o, theirs: t, oursTombstones, theirsTombstones)
            } else if let kept = oneSided(o, on: .ours, base: b, otherTombstone: theirsTombstones[o.id]) {
                merged[o.id] = kept
            }
        }
        for t in theirs.projects where oursProjects[t.id] == nil {
            if let kept = oneSided(t, on: .theirs, base: baseProjects[t.id], otherTombstone: oursTombstones[t.id]) {
                merged[t.id] = kept
            }
        }
        let order = mergeOrder(base: base?.projects.map(\.id) ?? [], ours: ours.projects.map(\.id),
                               theirs: theirs.projects.map(\.id), kept: Set(merged.keys))
        return order.compactMap { merged[$0] }
    }

    mutating func mergeProject(base b: Project?, ours o: Project, theirs t: Project,
                               _ oursTombstones: [UUID: Tombstone], _ theirsTombstones: [UUID: Tombstone]) -> Project {
        if o == t { return o }
        if let b, b == o { return t }
        if let b, b == t { return o }
        var fields = FieldMerge(ours: o.alterDate, theirs: t.alterDate)
        let title = fields.pick("title", base: b.map(\.title), ours: o.title, theirs: t.title) { $0 }

        let baseTasks = index(b?.tasks ?? [])
        let oursTasks = index(o.tasks)
        let theirsTasks = index(t.tasks)
        var tasks: [UUID: ProjectTask] = [:]
        for ot in o.tasks {
            let bt = baseTasks[ot.id]
            if let tt = theirsTasks[ot.id] {
                tasks[ot.id] = mergeTask(base: bt, ours: ot, theirs: tt, projectID: o.id)
            } else if let kept = oneSided(ot, on: .ours, base: bt, otherTombstone: theirsTombstones[ot.id], projectID: o.id) {
                tasks[ot.id] = kept
            }
        }
        for tt in t.tasks where oursTasks[tt.id] == nil {
            if let kept = oneSided(tt, on: .theirs, base: baseTasks[tt.id], otherTombstone: oursTombstones[tt.id], projectID: o.id) {
                tasks[tt.id] = kept
            }
        }
        let order = mergeOrder(base: b?.tasks.map(\.id) ?? [], ours: o.tasks.map(\.id), theirs: t.tasks.map(\.id),
                               kept: Set(tasks.keys))
        if !fields.decisions.isEmpty {
            decisions.append(ItemDecision(kind: .project, id: o.id, label: title, fields: fields.decisions))
        }
        return Project(id: o.id, title: title, tasks: order.compactMap { tasks[$0] }, alterDate: later(o.alterDate, t.alterDate))
    }

    mutating func mergeTask(base b: ProjectTask?, ours o: ProjectTask, theirs t: ProjectTask, projectID: UUID) -> ProjectTask {
        if o == t { return o }
        if let b, b == o { return t }
        if let b, b == t { return o }
        var fields = FieldMerge(ours: o.alterDate, theirs: t.alterDate)
        let title = fields.pick("title", base: b.map(\.title), ours: o.title, theirs: t.title) { $0 }
        let dueDate = fields.pick("dueDate", base: b.map(\.dueDate), ours: o.dueDate, theirs: t.dueDate) { dateText($0.date) }
        let state = fields.pick("state", base: b.map(\.state), ours: o.state, theirs: t.state) { $0.rawValue }

        // Slips merge by id: every slip either side has is kept; a stop set on
        // one side is kept; stops set on both follow the field rule.
        let baseSlips = index(b?.timeSlips ?? [])
        let theirsSlips = index(t.timeSlips)
        var slips: [TimeSlip] = []
        var seen = Set<UUID>()
        for os in o.timeSlips {
            seen.insert(os.id)
            guard let ts = theirsSlips[os.id] else { slips.append(os); continue }
            let bs = baseSlips[os.id]
            let stop = fields.pick("timeSlips[\(os.id.uuidString)].stop", base: bs.map(\.stop), ours: os.stop, theirs: ts.stop, text: dateText)
            let start = os.start.docketMilliseconds <= ts.start.docketMilliseconds ? os.start : ts.start
            slips.append(TimeSlip(id: os.id, start: start, stop: stop))
        }
        slips += t.timeSlips.filter { !seen.contains($0.id) }
        slips.sort { ($0.start.docketMilliseconds, $0.id.uuidString) < ($1.start.docketMilliseconds, $1.id.uuidString) }

        // At most one running slip: each earlier running slip stops where the next one starts.
        var stopped: [StoppedSlip] = []
        let running = slips.indices.filter { slips[$0].isRunning }
        for (index, next) in zip(running, running.dropFirst()) {
            let stop = slips[next].start
            slips[index] = TimeSlip(id: slips[index].id, start: slips[index].start, stop: stop)
            stopped.append(StoppedSlip(slipID: slips[index].id, stop: stop))
        }

        if !fields.decisions.isEmpty || !stopped.isEmpty {
            decisions.append(ItemDecision(kind: .task, id: o.id, label: title, projectID: projectID,
                                          fields: fields.decisions, stoppedSlips: stopped))
        }
        return ProjectTask(id: o.id, title: title, dueDate: dueDate, state: state, timeSlips: slips,
                           alterDate: later(o.alterDate, t.alterDate))
    }

    // MARK: Present on one side only

    /// Whether an item one side has and the other has not stays: an addition
    /// stays; an item the other side removed stays only when this side edited
    /// it later than the removal.
    mutating func oneSided<Item: MergeItem>(_ item: Item, on side: MergeSide, base: Item?, otherTombstone: Tombstone?,
                                            projectID: UUID? = nil) -> Item? {
        if base == nil && otherTombstone == nil { return item }  // added on this side
        if let base, base == item { return nil }                   // removed there, untouched here
        let editDate = item.lastEditDate
        let removedDate = otherTombstone?.removedDate
        let editWins = removedDate.map { (editDate?.docketMilliseconds ?? .min) > $0.docketMilliseconds } ?? true
        let lostItem = editWins ? nil : (try? DocketJSON.encode(item)).map { String(decoding: $0, as: UTF8.self) }
        decisions.append(ItemDecision(
            kind: Item.kind, id: item.id, label: item.label, projectID: projectID,
            removal: RemovalDecision(outcome: editWins ? .editWon : .removalWon, removedOn: side.other,
                                     removedDate: removedDate, editDate: editDate, lostItem: lostItem)))
        return editWins ? item : nil
    }
}

// MARK: - Fields

/// Picks each field's merged value and records why.
private struct FieldMerge {
    /// The side whose alterDate is later; nil when they are equal.
    let later: MergeSide?
    var decisions: [FieldDecision] = []

    init(ours: Date?, theirs: Date?) {
        let (o, t) = (ours?.docketMilliseconds ?? .min, theirs?.docketMilliseconds ?? .min)
        later = o == t ? nil : (o > t ? .ours : .theirs)
    }

    mutating func pick<Value: Equatable>(_ field: String, base: Value?, ours: Value, theirs: Value,
                                         text: (Value) -> String) -> Value {
        if ours == theirs { return ours }
        if let base, base == ours {
            decisions.append(FieldDecision(field: field, from: .theirs, rule: .onlyOneSideChanged, kept: text(theirs), lost: nil))
            return theirs
        }
        if let base, base == theirs {
            decisions.append(FieldDecision(field: field, from: .ours, rule: .onlyOneSideChanged, kept: text(ours), lost: nil))
            return ours
        }
        let (oursText, theirsText) = (text(ours), text(theirs))
        // NB: on equal alterDates the greater value wins, a rule that gives the
        // same answer whichever machine calls itself "ours".
        let winner = later ?? (oursText > theirsText ? .ours : .theirs)
        decisions.append(FieldDecision(field: field, from: winner, rule: later == nil ? .tieBreak : .laterEdit,
                                       kept: winner == .ours ? oursText : theirsText,
                                       lost: winner == .ours ? theirsText : oursText))
        return winner == .ours ? ours : theirs
    }
}

private func dateText(_ date: Date?) -> String { date.map(ISODate.string(from:)) ?? "none" }

private func later(_ a: Date?, _ b: Date?) -> Date? {
    guard let a else { return b }
    guard let b else { return a }
    return a.docketMilliseconds >= b.docketMilliseconds ? a : b
}

private func index<Item: Identifiable>(_ items: [Item]) -> [Item.ID: Item] {
    Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
}

// MARK: - Order

/// Merges the order of a list (projects, or a project's tasks) edited on two sides.
///
/// The Change DSL appends new items and moves re-added ones to the end, so
/// each side's list is a run of untouched items in base order followed by a
/// tail of added or moved ones. Items untouched on every side that has them
/// keep their base order; then come the two tails, the one that sorts first by
/// id going first, so both machines get the same order.
func mergeOrder(base: [UUID], ours: [UUID], theirs: [UUID], kept: Set<UUID>) -> [UUID] {
    let baseIndex = Dictionary(base.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
    func split(_ list: [UUID]) -> (untouched: Set<UUID>, tail: ArraySlice<UUID>) {
        var last = -1
        var end = 0
        while end < list.count, let position = baseIndex[list[end]], position > last {
            last = position
            end += 1
        }
        return (Set(list[..<end]), list[end...])
    }
    let (oursUntouched, oursTail) = split(ours)
    let (theirsUntouched, theirsTail) = split(theirs)
    let (oursAll, theirsAll) = (Set(ours), Set(theirs))

    var order = base.filter {
        kept.contains($0) && (!oursAll.contains($0) || oursUntouched.contains($0))
            && (!theirsAll.contains($0) || theirsUntouched.contains($0))
    }
    var placed = Set(order)
    let oursFirst = oursTail.lexicographicallyPrecedes(theirsTail) { $0.precedes($1) }
    for id in (oursFirst ? oursTail + theirsTail : theirsTail + oursTail) where kept.contains(id) && !placed.contains(id) {
        order.append(id)
        placed.insert(id)
    }
    return order
}

// MARK: - What the merge needs of an item

private protocol MergeItem: Identifiable<UUID>, Equatable, Encodable {
    static var kind: ItemDecision.Kind { get }
    var label: String { get }
    /// When the item was last edited, to weigh against a removal.
    var lastEditDate: Date? { get }
}

extension TodoItem: MergeItem {
    static var kind: ItemDecision.Kind { .todo }
    var label: String { text }
    var lastEditDate: Date? { alterDate ?? creationDate }
}

extension Project: MergeItem {
    static var kind: ItemDecision.Kind { .project }
    var label: String { title }
    var lastEditDate: Date? { latestAlterDate }
}

extension ProjectTask: MergeItem {
    static var kind: ItemDecision.Kind { .task }
    var label: String { title }
    var lastEditDate: Date? { alterDate }
}
