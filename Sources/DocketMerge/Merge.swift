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

/// One merge of two states: walks todos, projects and their tasks, and tombstones, collecting decisions.
struct StateMerger {
    let base: AppState?
    let ours: AppState
    let theirs: AppState
    var decisions: [ItemDecision] = []
    /// The base's tombstones, by id.
    var baseTombstones: [UUID: Tombstone] = [:]

    mutating func run() -> MergeResult {
        baseTombstones = index(base?.removed ?? [])
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
            if let mine = tombstones[id],
                mine.removedDate.docketMilliseconds >= tombstone.removedDate.docketMilliseconds
            {
                continue
            }
            tombstones[id] = tombstone
        }
        let removed = tombstones.values.filter { !present.contains($0.id) }
        let state = AppState(todos: todos, projects: projects, removed: Array(removed))
        return MergeResult(
            state: state,
            report: MergeReport(
                items: decisions, circles: MergeReport.circlesClosed(ours: ours, theirs: theirs, merged: state)))
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
                merged.append(mergeItem(base: b, ours: o, theirs: t))
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

    // MARK: Projects and their tasks

    mutating func mergeProjects(_ oursTombstones: [UUID: Tombstone], _ theirsTombstones: [UUID: Tombstone]) -> [Project]
    {
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
        let order = mergeOrder(
            base: base?.projects.map(\.id) ?? [], ours: ours.projects.map(\.id),
            theirs: theirs.projects.map(\.id), kept: Set(merged.keys))
        return order.compactMap { merged[$0] }
    }

    mutating func mergeProject(
        base b: Project?, ours o: Project, theirs t: Project,
        _ oursTombstones: [UUID: Tombstone], _ theirsTombstones: [UUID: Tombstone]
    ) -> Project {
        if o == t { return o }
        if let b, b == o { return t }
        if let b, b == t { return o }
        let header = mergeItem(base: b, ours: o, theirs: t)
        let baseTasks = index(b?.tasks ?? [])
        let oursTasks = index(o.tasks)
        let theirsTasks = index(t.tasks)
        var tasks: [UUID: ProjectTask] = [:]
        for ot in o.tasks {
            let bt = baseTasks[ot.id]
            if let tt = theirsTasks[ot.id] {
                tasks[ot.id] = mergeItem(base: bt, ours: ot, theirs: tt, projectID: o.id)
            } else if let kept = oneSided(
                ot, on: .ours, base: bt, otherTombstone: theirsTombstones[ot.id], projectID: o.id)
            {
                tasks[ot.id] = kept
            }
        }
        for tt in t.tasks where oursTasks[tt.id] == nil {
            if let kept = oneSided(
                tt, on: .theirs, base: baseTasks[tt.id], otherTombstone: oursTombstones[tt.id], projectID: o.id)
            {
                tasks[tt.id] = kept
            }
        }
        let order = mergeOrder(
            base: b?.tasks.map(\.id) ?? [], ours: o.tasks.map(\.id), theirs: t.tasks.map(\.id),
            kept: Set(tasks.keys))
        return Project(
            id: o.id, title: header.title, tasks: order.compactMap { tasks[$0] }, alterDate: header.alterDate)
    }

    // MARK: Present on one side only

    /// Whether an item one side has and the other has not stays: an addition
    /// stays; an item the other side removed stays only when this side edited
    /// it later than the removal.
    mutating func oneSided<Item: MergeItem>(
        _ item: Item, on side: MergeSide, base: Item?, otherTombstone: Tombstone?,
        projectID: UUID? = nil
    ) -> Item? {
        if base == nil && otherTombstone == nil { return item } // added on this side
        if let base, base == item { return nil } // removed there, untouched here
        let editDate = item.lastEditDate
        let removedDate = otherTombstone?.removedDate
        // NB: a removal the other side only kept from the base is not concurrent with this side's putting the item
        // back (a restore): the restore stands whatever the dates say, as a field only one side changed does. A
        // removal dated far ahead would otherwise outweigh every date a restore takes.
        let keptFromBase =
            base == nil
            && otherTombstone.map { other in
                baseTombstones[item.id].map { sameMillisecond($0.removedDate, other.removedDate) } ?? false
            } ?? false
        let editWins =
            keptFromBase
            || removedDate.map { (editDate?.docketMilliseconds ?? .min) > $0.docketMilliseconds } ?? true
        let lostItem = editWins ? nil : (try? DocketJSON.encode(item)).map { String(decoding: $0, as: UTF8.self) }
        decisions.append(
            ItemDecision(
                kind: Item.kind, id: item.id, label: item.label, projectID: projectID,
                removal: RemovalDecision(
                    outcome: editWins ? .editWon : .removalWon, removedOn: side.other,
                    removedDate: removedDate, editDate: editDate, lostItem: lostItem)))
        return editWins ? item : nil
    }
}

/// Items by id; the first of a duplicated id wins.
func index<Item: Identifiable>(_ items: [Item]) -> [Item.ID: Item] {
    Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
}
