import DocketMerge
import DocketModel
import DocketSpecSupport
import Foundation
import Nimble
import Quick

/// A random case: a base made by random edits, and two sides edited from it
/// concurrently, each with its own clock (which may run behind the other's).
struct MergeCase {
    let base: AppState
    let ours: AppState
    let theirs: AppState

    init(_ g: inout SeededGenerator, world: SeededWorld) {
        base = RandomEdits.state(Int.random(in: 0...12, using: &g), &g, world: world)
        let start = world.time
        ours = RandomEdits.edits(base, Int.random(in: 0...8, using: &g), &g, world: world)
        // The other machine's clock: the same time (to make ties), or skewed.
        world.time = start + [0, 0, Int64.random(in: -30_000...30_000, using: &g)].randomElement(using: &g)!
        theirs = RandomEdits.edits(base, Int.random(in: 0...8, using: &g), &g, world: world)
    }
}

/// Runs `body` over 1,000 seeded merge cases.
func forAllMerges(_ body: @escaping (MergeCase) -> String?) {
    forAll(1000) { g in
        let world = SeededWorld(seed: g.next())
        defer { world.uninstall() }
        return body(MergeCase(&g, world: world))
    }
}

final class MergeLawsSpec: QuickSpec {
    override class func spec() {
        describe("merge, over 1,000 random concurrent edit sequences per law") {
            it("converges: both machines get the same state and the same decisions") {
                forAllMerges { c in
                    let one = merge(base: c.base, ours: c.ours, theirs: c.theirs)
                    let other = merge(base: c.base, ours: c.theirs, theirs: c.ours)
                    if one.state != other.state { return "states differ:\n\(one.state)\n\(other.state)" }
                    if one.report != other.report.swappingSides() {
                        return "reports differ:\n\(one.report)\n\(other.report)"
                    }
                    return nil
                }
            }
            it("converges with no common ancestor too") {
                forAllMerges { c in
                    let one = merge(base: nil, ours: c.ours, theirs: c.theirs)
                    let other = merge(base: nil, ours: c.theirs, theirs: c.ours)
                    return one.state == other.state && one.report == other.report.swappingSides()
                        ? nil : "differ without a base"
                }
            }
            it("gives x back when both sides are x") {
                forAllMerges { c in
                    let merged = merge(base: c.base, ours: c.ours, theirs: c.ours).state
                    return merged == c.ours ? nil : "merge(b, x, x) = \(merged)\nx = \(c.ours)"
                }
            }
            it("gives x back when only one side changed") {
                forAllMerges { c in
                    let merged = merge(base: c.base, ours: c.base, theirs: c.theirs).state
                    return merged == c.theirs ? nil : "merge(b, b, x) = \(merged)\nx = \(c.theirs)"
                }
            }
            it("loses no value silently: every edited value not in the result is in the report") {
                forAllMerges { c in
                    let result = merge(base: c.base, ours: c.ours, theirs: c.theirs)
                    return silentLoss(c.base, c.ours, result) ?? silentLoss(c.base, c.theirs, result)
                }
            }
            it("leaves at most one running slip per task") {
                forAllMerges { c in
                    let result = merge(base: c.base, ours: c.ours, theirs: c.theirs)
                    for task in result.state.projects.flatMap(\.tasks)
                    where task.timeSlips.filter(\.isRunning).count > 1 {
                        return "task \(task.title) has \(task.timeSlips.filter(\.isRunning).count) running slips"
                    }
                    return nil
                }
            }
            it("leaves no finished task recording time") {
                forAllMerges { c in
                    let result = merge(base: c.base, ours: c.ours, theirs: c.theirs)
                    for task in result.state.projects.flatMap(\.tasks) where task.state == .finished {
                        if let slip = task.runningSlip { return "finished task \(task.title) runs slip \(slip.id)" }
                    }
                    return nil
                }
            }
            it("is a fixed point: merging the result with either side again changes nothing") {
                forAllMerges { c in
                    let merged = merge(base: c.base, ours: c.ours, theirs: c.theirs).state
                    let again = merge(base: c.ours, ours: c.ours, theirs: merged).state
                    return again == merged ? nil : "re-merge changed the state"
                }
            }
        }
    }
}

/// The first value `side` edited (relative to `base`) that is neither in the
/// merged state nor recorded as lost in the report. Every field is checked by
/// the rule it declares, so a new field is checked as soon as it is declared.
func silentLoss(_ base: AppState, _ side: AppState, _ result: MergeResult) -> String? {
    let report = result.report
    func decision(_ id: UUID) -> ItemDecision? { report.items.first { $0.id == id } }
    func removalWon(_ id: UUID) -> Bool {
        decision(id)?.removal?.outcome == .removalWon && decision(id)?.removal?.lostItem != nil
    }
    func recorded(_ id: UUID, _ field: String, _ value: String) -> Bool {
        decision(id)?.fields.contains { $0.field == FieldPath(field) && $0.lost == value } ?? false
    }
    func lost<Item: FieldCoded & Identifiable<UUID>>(_ base: Item?, _ side: Item, _ merged: Item) -> String? {
        for field in Item.fields {
            switch field.rule {
            case .identity, .earliest, .latest, .children:
                continue
            case .laterEdit, .follows:
                if let base, field.isSame(base, side) { continue }
                if field.isSame(side, merged) || recorded(side.id, field.key, field.text(of: side)) { continue }
                return "\(field.key) \(field.text(of: side)) of \(side.id) is lost without a trace"
            case .claim:
                // A claim is kept, recorded as lost, or ended before the one kept was taken.
                if let base, field.isSame(base, side) { continue }
                guard let claim = field.value(of: side) as! Claim? else { continue }
                let kept = field.value(of: merged) as! Claim?
                if kept?.id == claim.id || recorded(side.id, field.key, claim.fieldText) { continue }
                if let kept, claim.end.docketMilliseconds <= kept.taken.docketMilliseconds { continue }
                return "claim \(claim.fieldText) of \(side.id) is lost without a trace"
            case .timeSlips:
                let slips = field.value(of: side) as! [TimeSlip]
                let mergedSlips = field.value(of: merged) as! [TimeSlip]
                let baseSlips = base.map { field.value(of: $0) as! [TimeSlip] } ?? []
                for slip in slips {
                    guard let ms = mergedSlips.first(where: { $0.id == slip.id }) else {
                        return "slip \(slip.id) vanished"
                    }
                    if let bs = baseSlips.first(where: { $0.id == slip.id }), bs.stop.isSame(as: slip.stop) { continue }
                    if slip.stop == nil || slip.stop.isSame(as: ms.stop) { continue }
                    if !recorded(side.id, "timeSlips[\(slip.id.uuidString)].stop", slip.stop.fieldText) {
                        return "stop \(slip.stop.fieldText) of slip \(slip.id) is lost without a trace"
                    }
                }
            case .set:
                // Every element the side added is there, every one it removed is gone.
                func elements(_ item: Item) -> Set<String> {
                    (field.value(of: item) as! any SetFieldValue).elementTexts
                }
                let values = elements(side)
                let merged = elements(merged)
                let was = base.map(elements) ?? []
                if let added = values.subtracting(was).subtracting(merged).first {
                    return "\(field.key) \(added) added to \(side.id) is lost"
                }
                if let removed = was.subtracting(values).intersection(merged).first {
                    return "\(field.key) \(removed) removed from \(side.id) is back"
                }
            case .notes:
                let notes = field.value(of: side) as! [Note]
                let mergedNotes = field.value(of: merged) as! [Note]
                let was = base.map { field.value(of: $0) as! [Note] } ?? []
                for note in notes where was.first(where: { $0.id == note.id })?.text != note.text {
                    if mergedNotes.first(where: { $0.id == note.id })?.text == note.text { continue }
                    if !recorded(side.id, "notes[\(note.id.uuidString)]", note.text) {
                        return "note '\(note.text)' of \(side.id) is lost without a trace"
                    }
                }
                for note in was
                where !notes.contains(where: { $0.id == note.id }) && mergedNotes.contains(where: { $0.id == note.id })
                {
                    if !recorded(side.id, "notes[\(note.id.uuidString)]", "none") {
                        return "removal of note '\(note.text)' of \(side.id) is undone without a trace"
                    }
                }
            }
        }
        return nil
    }

    for todo in side.todos {
        let b = base.todo(id: todo.id)
        if b == todo { continue }
        guard let m = result.state.todo(id: todo.id) else {
            if removalWon(todo.id) { continue }
            return "todo \(todo.text) vanished without a trace"
        }
        if let problem = lost(b, todo, m) { return problem }
    }
    for project in side.projects {
        let b = base.project(id: project.id)
        if b == project { continue }
        guard let m = result.state.project(id: project.id) else {
            if removalWon(project.id) { continue }
            return "project \(project.title) vanished without a trace"
        }
        if let problem = lost(b, project, m) { return problem }
        for task in project.tasks {
            let bt = b?.task(id: task.id)
            if bt == task { continue }
            guard let mt = m.task(id: task.id) else {
                if removalWon(task.id) { continue }
                return "task \(task.title) vanished without a trace"
            }
            if let problem = lost(bt, task, mt) { return problem }
        }
    }
    return nil
}
