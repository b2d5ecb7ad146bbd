import DocketModel
import Foundation

/// What the merge needs of an item beyond its fields.
protocol MergeItem: FieldCoded, Identifiable<UUID> {
    /// The kind of item, for the report.
    static var kind: ItemDecision.Kind { get }
    /// Its text or title, for the report.
    var label: String { get }
    /// When it was last altered; nil until then.
    var alterDate: Date? { get }
    /// When it was last edited, to weigh against a removal.
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

extension StateMerger {
    /// One item both sides hold, merged field by field by each field's rule.
    /// A project's children (its tasks) are left as ours: the caller merges them.
    mutating func mergeItem<Item: MergeItem>(base b: Item?, ours o: Item, theirs t: Item, projectID: UUID? = nil) -> Item {
        if o == t { return o }
        if let b, b == o { return t }
        if let b, b == t { return o }
        var fields = FieldMerge(ours: o.alterDate, theirs: t.alterDate)
        var stopped: [StoppedSlip] = []
        var merged = o
        for field in Item.fields {
            switch field.rule {
            case .identity, .children:
                continue
            case .earliest, .latest:
                let (a, z) = (field.value(of: o).orderKey ?? .min, field.value(of: t).orderKey ?? .min)
                let takeTheirs = field.rule == .earliest ? z < a : z > a
                if takeTheirs { merged = field.copy(from: t, into: merged) }
            case .laterEdit:
                merged = fields.pick(field, base: b, ours: o, theirs: t, into: merged)
            case .timeSlips:
                let (slips, stops) = mergeSlips(base: b.map { field.value(of: $0) as! [TimeSlip] } ?? [],
                                                ours: field.value(of: o) as! [TimeSlip], theirs: field.value(of: t) as! [TimeSlip],
                                                fields: &fields)
                merged = field.setting(slips, in: merged)
                stopped = stops
            }
        }
        if !fields.decisions.isEmpty || !stopped.isEmpty {
            decisions.append(ItemDecision(kind: Item.kind, id: o.id, label: merged.label, projectID: projectID,
                                          fields: fields.decisions, stoppedSlips: stopped))
        }
        return merged
    }
}

/// Picks each field's merged value and records why.
struct FieldMerge {
    /// The side whose alterDate is later; nil when they are equal.
    let later: MergeSide?
    var decisions: [FieldDecision] = []

    init(ours: Date?, theirs: Date?) {
        let (o, t) = (ours?.docketMilliseconds ?? .min, theirs?.docketMilliseconds ?? .min)
        later = o == t ? nil : (o > t ? .ours : .theirs)
    }

    /// `merged` with the field set by the later-edit rule, recording the decision.
    mutating func pick<Item>(_ field: ItemField<Item>, base: Item?, ours: Item, theirs: Item, into merged: Item) -> Item {
        if field.isSame(ours, theirs) { return merged }
        switch choose(field.key, baseIsOurs: base.map { field.isSame($0, ours) }, baseIsTheirs: base.map { field.isSame($0, theirs) },
                      ours: field.text(of: ours), theirs: field.text(of: theirs)) {
        case .ours: return field.copy(from: ours, into: merged)
        case .theirs: return field.copy(from: theirs, into: merged)
        }
    }

    /// Which side a value that differs comes from, by the later-edit rule, recording the decision.
    mutating func choose(_ name: String, baseIsOurs: Bool?, baseIsTheirs: Bool?, ours: String, theirs: String) -> MergeSide {
        if baseIsOurs == true {
            decisions.append(FieldDecision(field: name, from: .theirs, rule: .onlyOneSideChanged, kept: theirs, lost: nil))
            return .theirs
        }
        if baseIsTheirs == true {
            decisions.append(FieldDecision(field: name, from: .ours, rule: .onlyOneSideChanged, kept: ours, lost: nil))
            return .ours
        }
        // NB: on equal alterDates the greater value wins, a rule that gives the
        // same answer whichever machine calls itself "ours".
        let winner = later ?? (ours > theirs ? .ours : .theirs)
        decisions.append(FieldDecision(field: name, from: winner, rule: later == nil ? .tieBreak : .laterEdit,
                                       kept: winner == .ours ? ours : theirs, lost: winner == .ours ? theirs : ours))
        return winner
    }
}
