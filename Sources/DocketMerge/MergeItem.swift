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
    /// The merged item where fields merged each by its own rule disagree, made whole, with the running slips that
    /// stopped; the item itself where they agree.
    func settled() -> (Self, [StoppedSlip])
}

extension MergeItem {
    func settled() -> (Self, [StoppedSlip]) { (self, []) }
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

    /// A task finished on one machine while a slip ran on another: the slip stops at the finish (or at its own start,
    /// when it began after the finish), as finishing it stops a slip it knows of.
    func settled() -> (ProjectTask, [StoppedSlip]) {
        guard let stopped = stoppingSlipAtFinish() else { return (self, []) }
        return (stopped.task, [StoppedSlip(slipID: stopped.slip, stop: stopped.stop)])
    }
}

extension StateMerger {
    /// One item both sides hold, merged field by field by each field's rule.
    /// A project's children (its tasks) are left as ours: the caller merges them.
    mutating func mergeItem<Item: MergeItem>(base b: Item?, ours o: Item, theirs t: Item, projectID: UUID? = nil)
        -> Item
    {
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
                // NB: an absent date never wins: the earliest of a date and none is the date.
                let absent: Int64 = field.rule == .earliest ? .max : .min
                func key(_ value: any FieldValue) -> Int64 { value.isAbsent ? absent : value.orderKey ?? .min }
                let (a, z) = (key(field.value(of: o)), key(field.value(of: t)))
                let takeTheirs = field.rule == .earliest ? z < a : z > a
                if takeTheirs { merged = field.copy(from: t, into: merged) }
            case .laterEdit:
                merged = fields.pick(field, base: b, ours: o, theirs: t, into: merged)
            case .timeSlips:
                let (slips, stops) = mergeSlips(
                    base: b.map { field.value(of: $0) as! [TimeSlip] } ?? [],
                    ours: field.value(of: o) as! [TimeSlip], theirs: field.value(of: t) as! [TimeSlip],
                    fields: &fields)
                merged = field.setting(slips, in: merged)
                stopped = stops
            case .set:
                merged = fields.mergeSet(field, base: b, ours: o, theirs: t, into: merged)
            case .notes:
                let notes = fields.mergeNotes(
                    base: b.map { field.value(of: $0) as! [Note] } ?? [],
                    ours: field.value(of: o) as! [Note], theirs: field.value(of: t) as! [Note])
                merged = field.setting(notes, in: merged)
            case .claim:
                merged = fields.mergeClaim(field, base: b, ours: o, theirs: t, into: merged)
            case let .follows(leader):
                merged = fields.follow(field, leader: leader, base: b, ours: o, theirs: t, into: merged)
            }
        }
        let (whole, finishStops) = merged.settled()
        merged = whole
        stopped += finishStops
        if !fields.decisions.isEmpty || !stopped.isEmpty {
            decisions.append(
                ItemDecision(
                    kind: Item.kind, id: o.id, label: merged.label, projectID: projectID,
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
    /// The side each field decided so far came from, for the fields that follow it.
    private var sides: [String: MergeSide] = [:]

    init(ours: Date?, theirs: Date?) {
        let (o, t) = (ours?.docketMilliseconds ?? .min, theirs?.docketMilliseconds ?? .min)
        later = o == t ? nil : (o > t ? .ours : .theirs)
    }

    /// `merged` with the field set by the later-edit rule, recording the decision.
    mutating func pick<Item>(_ field: ItemField<Item>, base: Item?, ours: Item, theirs: Item, into merged: Item) -> Item
    {
        if field.isSame(ours, theirs) { return merged }
        let side = choose(
            .field(field.key), baseIsOurs: base.map { field.isSame($0, ours) },
            baseIsTheirs: base.map { field.isSame($0, theirs) },
            ours: field.text(of: ours), theirs: field.text(of: theirs))
        sides[field.key] = side
        return field.copy(from: side == .ours ? ours : theirs, into: merged)
    }

    /// `merged` with a field that follows `leader` taken from the side the leader came from,
    /// recording the other side's value as lost when that side had changed it too.
    mutating func follow<Item>(
        _ field: ItemField<Item>, leader: String, base: Item?, ours: Item, theirs: Item, into merged: Item
    ) -> Item {
        if field.isSame(ours, theirs) { return merged }
        guard let side = sides[leader] else { return pick(field, base: base, ours: ours, theirs: theirs, into: merged) }
        let (winner, loser) = side == .ours ? (ours, theirs) : (theirs, ours)
        let loserChanged = base.map { !field.isSame($0, loser) } ?? true
        decisions.append(
            FieldDecision(
                field: .field(field.key), from: side, rule: .follows, kept: field.text(of: winner),
                lost: loserChanged ? field.text(of: loser) : nil, leader: leader))
        return field.copy(from: winner, into: merged)
    }

    /// `merged` with a set (tags, dependencies) merged element by element: each side's
    /// additions and removals applied (with no common ancestor, the union).
    mutating func mergeSet<Item>(_ field: ItemField<Item>, base: Item?, ours: Item, theirs: Item, into merged: Item)
        -> Item
    {
        func elements(_ item: Item) -> Set<String> { (field.value(of: item) as! any SetFieldValue).elementTexts }
        let o = elements(ours)
        let t = elements(theirs)
        if o == t { return merged }
        let b = base.map(elements) ?? []
        if let base, field.isSame(base, ours) || field.isSame(base, theirs) {
            return pick(field, base: base, ours: ours, theirs: theirs, into: merged)
        }
        let result = b.union(o.subtracting(b)).union(t.subtracting(b)).subtracting(b.subtracting(o)).subtracting(
            b.subtracting(t))
        let value = type(of: field.value(of: ours) as! any SetFieldValue).fromElementTexts(result)
        func did(_ side: Set<String>) -> String {
            let added = side.subtracting(b).sorted().map { "+" + $0 }
            let removed = b.subtracting(side).sorted().map { "-" + $0 }
            return (added + removed).joined(separator: " ")
        }
        let (oursDid, theirsDid) = (did(o), did(t))
        let from = later ?? (oursDid > theirsDid ? .ours : .theirs)
        decisions.append(
            FieldDecision(
                field: .field(field.key), from: from, rule: .combined, kept: value.fieldText, lost: nil,
                combined: .init(ours: oursDid, theirs: theirsDid)))
        return field.setting(value, in: merged)
    }

    /// Notes merged by id: one only one side has is kept unless the other
    /// side removed it (then the removal and an edit weigh as any two edits);
    /// one both have takes its text by the later-edit rule.
    mutating func mergeNotes(base: [Note], ours: [Note], theirs: [Note]) -> [Note] {
        let b = Dictionary(base.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let o = Dictionary(ours.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let t = Dictionary(theirs.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var notes: [Note] = []
        for id in Set(o.keys).union(t.keys) {
            let (on, tn, bn) = (o[id], t[id], b[id])
            if on?.text == tn?.text {
                if let on, let tn { notes.append(on.date.docketMilliseconds <= tn.date.docketMilliseconds ? on : tn) }
                continue
            }
            let side = choose(
                .note(id), baseIsOurs: bn?.text == on?.text, baseIsTheirs: bn?.text == tn?.text,
                ours: on?.text ?? "none", theirs: tn?.text ?? "none")
            guard let kept = side == .ours ? on : tn else { continue }
            let other = side == .ours ? tn : on
            notes.append(
                other.map {
                    kept.date.docketMilliseconds <= $0.date.docketMilliseconds
                        ? kept : Note(id: id, date: $0.date, text: kept.text)
                } ?? kept)
        }
        return Note.inOrder(notes)
    }

    /// Which side a value that differs comes from, by the later-edit rule, recording the decision.
    mutating func choose(_ name: FieldPath, baseIsOurs: Bool?, baseIsTheirs: Bool?, ours: String, theirs: String)
        -> MergeSide
    {
        if baseIsOurs == true {
            decisions.append(
                FieldDecision(field: name, from: .theirs, rule: .onlyOneSideChanged, kept: theirs, lost: nil))
            return .theirs
        }
        if baseIsTheirs == true {
            decisions.append(FieldDecision(field: name, from: .ours, rule: .onlyOneSideChanged, kept: ours, lost: nil))
            return .ours
        }
        // NB: on equal alterDates the greater value wins, a rule that gives the
        // same answer whichever machine calls itself "ours".
        let winner = later ?? (ours > theirs ? .ours : .theirs)
        decisions.append(
            FieldDecision(
                field: name, from: winner, rule: later == nil ? .tieBreak : .laterEdit,
                kept: winner == .ours ? ours : theirs, lost: winner == .ours ? theirs : ours))
        return winner
    }
}
