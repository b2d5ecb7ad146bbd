import Foundation

/// A change undone as a new edit: each field the change set is put back to
/// what it was, where it still holds what the change wrote, with a new
/// alterDate, so the undo syncs and merges like any other edit. Only what the
/// change did is taken back, by each field's merge rule: the tags and
/// dependencies it added or removed (not the whole set), the notes and time
/// slips it added, edited or removed (by id), a wait or scheduled date as any
/// later-edit field, and a field that follows another (a completion date) with
/// that field. Fields changed since (here or by a merge) are left as they are
/// and named, with whose edit a later merge brought; where a later merge set
/// another machine's concurrent edit aside for the change's, the field takes
/// that edit rather than the old value, as the merge would have without the
/// change.
public struct Reversal: Sendable {
    /// The state with the change undone.
    public let state: AppState
    /// What could not be put back, for people: "todo 'Buy milk' text: changed since by Desk (merge origin/main)".
    public let skipped: [String]
    /// Fields given another machine's edit instead of the old value, for people: "todo 'Buy milk' text: set
    /// to \"Buy oat milk\", the edit by Desk this change had won over in merge origin/main".
    public let others: [String]
}

/// A merge made after a change that is being undone, as this machine kept it: what it changed, whose edits
/// it brought in, and which of the other side's edits lost to this machine's, so that undoing the change
/// leaves the other machines' edits alone and can say whose they were.
public struct LaterMerge: Sendable {
    /// Its name, such as "merge origin/main".
    public let name: String
    /// Who made the edits it brought in, as their commits name them ("Desk <desk@example.org>").
    public let by: [String]
    /// The items it touched, as this machine had them before it.
    public let before: AppState
    /// The items it touched, as it left them.
    public let after: AppState
    /// The other side's version of the items that lost a value to this machine's.
    public let theirs: AppState
    /// What the other side lost to this machine's values: a field or a note of an item, or the whole item
    /// (`FieldPath.item`) for its edit of an item this machine's removal won over.
    public let lost: Set<ItemFieldPath>

    /// A merge as kept.
    public init(
        name: String, by: [String], before: AppState, after: AppState, theirs: AppState, lost: Set<ItemFieldPath>
    ) {
        (self.name, self.by, self.before, self.after, self.theirs, self.lost) = (name, by, before, after, theirs, lost)
    }

    /// Whose edits it brought, for people: "Desk <desk@example.org>", "Desk and Anna", "Desk, Anna and 2
    /// others"; "another machine" when its commits named no one.
    public var whose: String { Self.names(by) }

    /// Names for people, as `whose` gives them.
    public static func names(_ by: [String]) -> String {
        switch by.count {
        case 0: "another machine"
        case 1: by[0]
        case 2: "\(by[0]) and \(by[1])"
        case 3: "\(by[0]), \(by[1]) and \(by[2])"
        default: "\(by[0]), \(by[1]) and \(by.count - 2) others"
        }
    }
}

/// One item's versions in a later merge: before it, after it, and the other side's.
private struct Versions<Item> {
    let merge: LaterMerge
    let before: Item?
    let after: Item?
    let theirs: Item?
}

extension AppState {
    /// This state with the change from `before` to `after` undone as a new
    /// edit (see `Reversal`). Items the change added are removed, unless
    /// `keepingAdded` (a merge's undo keeps what it brought in); items it
    /// removed come back, dated after their removal so they win over it.
    /// `since` are the merges made after the change, oldest first.
    public func reversing(
        before: AppState, after: AppState, keepingAdded: Bool = false, since merges: [LaterMerge] = []
    ) -> Reversal {
        var state = self
        var skipped: [String] = []
        var others: [String] = []
        let todoIDs = Set(before.todos.map(\.id)).union(after.todos.map(\.id))
        for id in todoIDs.sorted(by: { $0.precedes($1) }) {
            let versions = merges.map {
                Versions(
                    merge: $0, before: $0.before.todo(id: id), after: $0.after.todo(id: id),
                    theirs: $0.theirs.todo(id: id))
            }
            switch (before.todo(id: id), after.todo(id: id), state.todo(id: id)) {
            case let (b?, a?, c?):
                let undone = Self.reverse(c, before: b, after: a, id: id, label: "todo '\(c.text)'", since: versions)
                (skipped, others) = (skipped + undone.skipped, others + undone.others)
                if undone.item != c {
                    state = state.alter(by: .updating(.todo(undone.item.redated(after: c.alterDate))))
                }
            case (_?, _?, nil):
                skipped.append("todo '\(after.todo(id: id)!.text)': removed since")
            case let (nil, _?, c?) where !keepingAdded:
                state = state.alter(by: .removing(.todo(c)))
            case let (b?, nil, nil):
                let removed = state.tombstone(id: id)?.removedDate ?? after.tombstone(id: id)?.removedDate
                let (item, note) = Self.unremoved(b, id: id, label: "todo '\(b.text)'", since: versions)
                others += note
                state = state.alter(
                    by: .adding(.todo(item.redated(after: [item.alterDate, removed].compactMap { $0 }.max()))))
            default:
                continue
            }
        }
        let projectIDs = Set(before.projects.map(\.id)).union(after.projects.map(\.id))
        for id in projectIDs.sorted(by: { $0.precedes($1) }) {
            let versions = merges.map {
                Versions(
                    merge: $0, before: $0.before.project(id: id), after: $0.after.project(id: id),
                    theirs: $0.theirs.project(id: id))
            }
            switch (before.project(id: id), after.project(id: id), state.project(id: id)) {
            case let (b?, a?, c?):
                var project = c
                let header = Self.reverse(
                    c, before: b, after: a, id: id, label: "project '\(c.title)'", since: versions)
                (skipped, others) = (skipped + header.skipped, others + header.others)
                if !Project.fields.filter({ $0.rule == .laterEdit }).allSatisfy({ $0.isSame(header.item, c) }) {
                    project = project.alter(by: .setting(.title(to: header.item.title)))
                }
                let tasks = Self.reverseTasks(
                    of: project, before: b, after: a, keepingAdded: keepingAdded, since: versions)
                (project, skipped, others) = (tasks.project, skipped + tasks.skipped, others + tasks.others)
                if project != c { state = state.alter(by: .updating(.project(project))) }
            case (_?, _?, nil):
                skipped.append("project '\(after.project(id: id)!.title)': removed since")
            case let (nil, _?, c?) where !keepingAdded:
                state = state.alter(by: .removing(.project(c)))
            case let (b?, nil, nil):
                let removed = state.tombstone(id: id)?.removedDate ?? after.tombstone(id: id)?.removedDate
                let (item, note) = Self.unremoved(b, id: id, label: "project '\(b.title)'", since: versions)
                others += note
                state = state.alter(
                    by: .adding(.project(item.redated(after: [item.latestAlterDate, removed].compactMap { $0 }.max()))))
            default:
                continue
            }
        }
        return Reversal(state: state, skipped: skipped, others: others)
    }

    private static func reverseTasks(
        of project: Project, before: Project, after: Project, keepingAdded: Bool, since merges: [Versions<Project>]
    ) -> (project: Project, skipped: [String], others: [String]) {
        var project = project
        var skipped: [String] = []
        var others: [String] = []
        let ids = Set(before.tasks.map(\.id)).union(after.tasks.map(\.id))
        for id in ids.sorted(by: { $0.precedes($1) }) {
            let versions = merges.map {
                Versions(
                    merge: $0.merge, before: $0.before?.task(id: id), after: $0.after?.task(id: id),
                    theirs: $0.theirs?.task(id: id))
            }
            switch (before.task(id: id), after.task(id: id), project.task(id: id)) {
            case let (b?, a?, c?):
                let undone = reverse(c, before: b, after: a, id: id, label: "task '\(c.title)'", since: versions)
                (skipped, others) = (skipped + undone.skipped, others + undone.others)
                if undone.item != c {
                    project = project.alter(by: .updating(.task(undone.item.redated(after: c.alterDate))))
                }
            case (_?, _?, nil):
                skipped.append("task '\(after.task(id: id)!.title)': removed since")
            case let (nil, _?, c?) where !keepingAdded:
                project = project.alter(by: .removing(.task(c)))
            case let (b?, nil, nil):
                let (task, note) = unremoved(b, id: id, label: "task '\(b.title)'", since: versions)
                others += note
                project = project.alter(
                    by: .adding(
                        .task(
                            task.redated(after: max(task.alterDate ?? .distantPast, project.alterDate ?? .distantPast))
                        )))
            default:
                continue
            }
        }
        return (project, skipped, others)
    }

    /// An item the change removed, to bring back: as it was, or as the other machine's edit a later merge set
    /// aside for the removal left it.
    private static func unremoved<Item>(_ before: Item, id: UUID, label: String, since merges: [Versions<Item>]) -> (
        Item, [String]
    ) {
        guard let merge = merges.last(where: { $0.theirs != nil && $0.merge.lost.contains(ItemFieldPath(id, .item)) }),
            let theirs = merge.theirs
        else { return (before, []) }
        return (
            theirs,
            [
                "\(label): back as the edit by \(merge.merge.whose) left it, which its removal had won over in \(merge.merge.name)"
            ]
        )
    }

    /// `current` with what the change did to each field taken back (see `Reversal`).
    private static func reverse<Item: FieldCoded>(
        _ current: Item, before: Item, after: Item, id: UUID, label: String, since merges: [Versions<Item>]
    ) -> (item: Item, skipped: [String], others: [String]) {
        var item = current
        var skipped: [String] = []
        var others: [String] = []
        // The version each field was put back from, for the fields that follow it.
        var sources: [String: Item] = [:]
        func changedSince(_ field: ItemField<Item>) -> String {
            let merge = merges.last { versions in
                guard let b = versions.before, let a = versions.after else { return false }
                return !field.isSame(b, a)
            }
            return merge.map { "changed since by \($0.merge.whose) (\($0.merge.name))" } ?? "changed since"
        }
        for field in Item.contentFields where !field.isSame(before, after) {
            switch field.rule {
            case .set:
                let (b, a) = (elements(field, before), elements(field, after))
                let c = elements(field, current)
                let value = c.subtracting(a.subtracting(b)).union(b.subtracting(a))
                if value != c {
                    let type = type(of: field.value(of: current) as! any SetFieldValue)
                    item = field.setting(type.fromElementTexts(value), in: item)
                }
            case .notes:
                let notes = reverseNotes(
                    field.value(of: current) as! [Note], before: field.value(of: before) as! [Note],
                    after: field.value(of: after) as! [Note], itemID: id, label: label,
                    theirs: merges.map { ($0.merge, $0.theirs.map { field.value(of: $0) as! [Note] }) })
                item = field.setting(notes.notes, in: item)
                (skipped, others) = (skipped + notes.skipped, others + notes.others)
            case .timeSlips:
                let slips = reverseSlips(
                    field.value(of: current) as! [TimeSlip], before: field.value(of: before) as! [TimeSlip],
                    after: field.value(of: after) as! [TimeSlip], label: label)
                item = field.setting(slips.slips, in: item)
                skipped += slips.skipped
            case .follows:
                continue
            case .laterEdit, .claim, .identity, .earliest, .latest, .children:
                // NB: a field whose follower changed since (a completion done again, with a new date) changed too.
                let followersStand = Item.contentFields.allSatisfy { follower in
                    guard case let .follows(leader) = follower.rule, leader == field.key else { return true }
                    return follower.isSame(before, after) || follower.isSame(current, after)
                }
                if field.isSame(current, after) && followersStand {
                    let merge = merges.last {
                        $0.theirs != nil && $0.merge.lost.contains(ItemFieldPath(id, .field(field.key)))
                    }
                    if let merge, let theirs = merge.theirs {
                        item = field.copy(from: theirs, into: item)
                        sources[field.key] = theirs
                        others.append(
                            "\(label) \(field.label): set to \"\(field.text(of: theirs))\", the edit by \(merge.merge.whose) "
                                + "this change had won over in \(merge.merge.name)")
                    } else {
                        item = field.copy(from: before, into: item)
                        sources[field.key] = before
                    }
                } else if !field.isSame(current, before) {
                    skipped.append("\(label) \(field.label): \(changedSince(field))")
                }
            }
        }
        // A field that follows another goes with it: put back from where that one was, or left with it.
        for field in Item.contentFields {
            guard case let .follows(leader) = field.rule else { continue }
            if let source = sources[leader] {
                item = field.copy(from: source, into: item)
            } else if !field.isSame(before, after),
                Item.fields.first(where: { $0.key == leader }).map({ $0.isSame(before, after) }) ?? true
            {
                if field.isSame(current, after) {
                    item = field.copy(from: before, into: item)
                } else if !field.isSame(current, before) {
                    skipped.append("\(label) \(field.label): \(changedSince(field))")
                }
            }
        }
        return (item, skipped, others)
    }

    /// A set field's elements (tags, dependencies), as text.
    private static func elements<Item>(_ field: ItemField<Item>, _ item: Item) -> Set<String> {
        (field.value(of: item) as! any SetFieldValue).elementTexts
    }

    /// `current` with the notes the change added taken out, those it removed put back and those it edited
    /// given their old text, where each is still as the change left it; a note edited since is named.
    private static func reverseNotes(
        _ current: [Note], before: [Note], after: [Note], itemID: UUID, label: String,
        theirs: [(merge: LaterMerge, notes: [Note]?)]
    ) -> (notes: [Note], skipped: [String], others: [String]) {
        func byID(_ notes: [Note]) -> [UUID: Note] {
            Dictionary(notes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        }
        let (b, a) = (byID(before), byID(after))
        var notes = byID(current)
        var skipped: [String] = []
        var others: [String] = []
        for id in Set(b.keys).union(a.keys).sorted(by: { $0.precedes($1) }) where b[id]?.text != a[id]?.text {
            let shown = "note \"\((a[id] ?? b[id])!.text)\""
            if notes[id]?.text == a[id]?.text {
                if let lost = theirs.last(where: {
                    $0.notes != nil && $0.merge.lost.contains(ItemFieldPath(itemID, .note(id)))
                }) {
                    let other = lost.notes!.first { $0.id == id }
                    notes[id] = other
                    others.append(
                        "\(label) \(shown): \(other.map { "set to \"\($0.text)\"" } ?? "removed"), the edit by "
                            + "\(lost.merge.whose) this change had won over in \(lost.merge.name)")
                } else {
                    notes[id] = b[id]
                }
            } else if notes[id]?.text != b[id]?.text {
                skipped.append("\(label) \(shown): changed since")
            }
        }
        return (Note.inOrder(Array(notes.values)), skipped, others)
    }

    /// `current` with the time slips the change started taken out, those it removed put back and those it
    /// stopped running again, where each is still as the change left it; a slip changed since is named. A slip put
    /// back in place keeps its place: slips started while the clock was behind stay where they were.
    private static func reverseSlips(_ current: [TimeSlip], before: [TimeSlip], after: [TimeSlip], label: String) -> (
        slips: [TimeSlip], skipped: [String]
    ) {
        func byID(_ slips: [TimeSlip]) -> [UUID: TimeSlip] {
            Dictionary(slips.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        }
        let (b, a) = (byID(before), byID(after))
        var slips = current
        var skipped: [String] = []
        var added = false
        for id in Set(b.keys).union(a.keys).sorted(by: { $0.precedes($1) }) where b[id] != a[id] {
            let index = slips.firstIndex { $0.id == id }
            let now = index.map { slips[$0] }
            if now == a[id] {
                switch (index, b[id]) {
                case let (index?, old?): slips[index] = old
                case let (index?, nil): slips.remove(at: index)
                case let (nil, old?):
                    slips.append(old)
                    added = true
                case (nil, nil): break
                }
            } else if now != b[id] {
                skipped.append(
                    "\(label) time slip started \(ShownDate.string((a[id] ?? b[id])!.start)): changed since")
            }
        }
        if !added { return (slips, skipped) }
        // NB: a slip put back goes in the order a merge gives them, so the undo's file reads as a merged one would.
        slips.sort { ($0.start.docketMilliseconds, $0.id.uuidString) < ($1.start.docketMilliseconds, $1.id.uuidString) }
        return (slips, skipped)
    }
}
