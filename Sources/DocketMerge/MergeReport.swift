import DocketModel
import Foundation

/// Which of the two merged states a value came from: `ours` is the local
/// state, `theirs` the one pulled in.
public enum MergeSide: String, Codable, Hashable, Sendable {
    /// The machine that merged.
    case ours
    /// The machine whose commits were pulled in.
    case theirs

    /// The other side.
    public var other: MergeSide { self == .ours ? .theirs : .ours }
}

/// Every decision a merge took, so that nothing is lost without a trace.
public struct MergeReport: Codable, Hashable, Sendable {
    /// One entry per item that needed a decision, ordered by kind, then id.
    public let items: [ItemDecision]
    /// Dates of merged items far ahead of the commits that carried them.
    public let farAhead: [FarAheadDate]
    /// Dependencies the merged state ignores: each closes a circle the two sides made together.
    public let circles: [CircleDecision]

    /// A report of these decisions, put in their order.
    public init(items: [ItemDecision], farAhead: [FarAheadDate] = [], circles: [CircleDecision] = []) {
        self.items = items.sorted { ($0.kind.order, $0.id.uuidString) < ($1.kind.order, $1.id.uuidString) }
        self.farAhead = farAhead.sorted { ($0.id.uuidString, $0.field) < ($1.id.uuidString, $1.field) }
        self.circles = circles.sorted {
            ($0.itemID.uuidString, $0.dependencyID.uuidString) < ($1.itemID.uuidString, $1.dependencyID.uuidString)
        }
    }

    /// This report with far-ahead dates added.
    public func noting(_ dates: [FarAheadDate]) -> MergeReport {
        MergeReport(items: items, farAhead: farAhead + dates, circles: circles)
    }

    /// This report with the dependencies ignored in circles the merge closed given as `circles`.
    public func noting(circles: [CircleDecision]) -> MergeReport {
        MergeReport(items: items, farAhead: farAhead, circles: circles)
    }

    /// Its lines for people beside the items': far-ahead dates and dependencies ignored.
    public var noteLines: [String] { farAhead.map(\.line) + circles.map(\.line) }

    /// Whether the merge discarded a value: a field both sides changed, or an edit a removal won over.
    public var losesValues: Bool {
        items.contains { item in item.fields.contains { $0.lost != nil } || item.removal?.outcome == .removalWon }
    }

    /// Whether no item needed a decision, no date was far ahead and no dependency was ignored.
    public var isEmpty: Bool { items.isEmpty && farAhead.isEmpty && circles.isEmpty }

    /// The same decisions, as seen from the other machine (ours and theirs swapped).
    public func swappingSides() -> MergeReport {
        MergeReport(items: items.map { $0.swappingSides() }, farAhead: farAhead, circles: circles)
    }

    private enum CodingKeys: String, CodingKey { case items, farAhead, circles }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            items: try c.decode([ItemDecision].self, forKey: .items),
            farAhead: try c.decodeIfPresent([FarAheadDate].self, forKey: .farAhead) ?? [],
            circles: try c.decodeIfPresent([CircleDecision].self, forKey: .circles) ?? [])
    }

    // NB: `circles` is left out while empty, so a report without one reads as before, and to an older docket.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(items, forKey: .items)
        try c.encode(farAhead, forKey: .farAhead)
        if !circles.isEmpty { try c.encode(circles, forKey: .circles) }
    }

    /// A short summary for people, such as
    /// "3 items merged; 1 field chose the later edit: todo 'Buy milk' text". A field both sides
    /// changed at the same moment is named apart ("kept the greater value"): no edit was later.
    public var summary: String {
        var parts = [
            items.isEmpty ? "no item needed a decision" : "\(items.count) \(items.count == 1 ? "item" : "items") merged"
        ]
        func fields(_ tied: Bool) -> [String] {
            items.flatMap { item in
                item.fields.filter { $0.lost != nil && ($0.rule == .tieBreak) == tied }.map {
                    "\(item.kind) '\(item.label)' \($0.field)"
                }
            }
        }
        let later = fields(false)
        let tied = fields(true)
        if !later.isEmpty {
            parts.append(
                "\(later.count) \(later.count == 1 ? "field" : "fields") chose the later edit: \(later.joined(separator: ", "))"
            )
        }
        if !tied.isEmpty {
            parts.append(
                "\(tied.count) \(tied.count == 1 ? "field" : "fields") edited at the same moment kept the greater value: \(tied.joined(separator: ", "))"
            )
        }
        let removalsWon = items.filter { $0.removal?.outcome == .removalWon }.map { "\($0.kind) '\($0.label)'" }
        if !removalsWon.isEmpty {
            parts.append(
                "\(removalsWon.count) \(removalsWon.count == 1 ? "removal" : "removals") won over a concurrent edit: \(removalsWon.joined(separator: ", "))"
            )
        }
        let editsWon = items.filter { $0.removal?.outcome == .editWon }.map { "\($0.kind) '\($0.label)'" }
        if !editsWon.isEmpty {
            parts.append(
                "\(editsWon.count) \(editsWon.count == 1 ? "edit" : "edits") won over a removal: \(editsWon.joined(separator: ", "))"
            )
        }
        let stopped = items.filter { !$0.stoppedSlips.isEmpty }.map { "task '\($0.label)'" }
        if !stopped.isEmpty {
            parts.append(
                "\(stopped.count) running \(stopped.count == 1 ? "slip" : "slips") stopped: \(stopped.joined(separator: ", "))"
            )
        }
        if !farAhead.isEmpty {
            parts.append(
                "\(farAhead.count) \(farAhead.count == 1 ? "date" : "dates") far ahead of \(farAhead.count == 1 ? "its commit" : "their commits"): "
                    + farAhead.map { "\($0.kind) '\($0.label)' \($0.field) \(ISODate.string(from: $0.date))" }.joined(
                        separator: ", "))
        }
        if !circles.isEmpty {
            parts.append(
                "\(circles.count) \(circles.count == 1 ? "dependency" : "dependencies") closing a circle \(circles.count == 1 ? "blocks" : "block") nothing: "
                    + circles.map { "\($0.item) on \($0.dependency)" }.joined(separator: ", "))
        }
        return parts.joined(separator: "; ")
    }
}

/// What a merge decided for one item (a todo, a project or a task).
public struct ItemDecision: Codable, Hashable, Sendable {
    /// What kind of item.
    public enum Kind: String, Codable, Hashable, Sendable, CustomStringConvertible {
        case todo, project, task
        var order: Int { self == .todo ? 0 : self == .project ? 1 : 2 }
        public var description: String { rawValue }
    }

    /// The kind of item.
    public let kind: Kind
    /// The item's id.
    public let id: UUID
    /// The item's text or title, as merged (or as last seen, when removed).
    public let label: String
    /// For a task, its project.
    public let projectID: UUID?
    /// The fields that were combined from the two sides, each with the rule that chose it.
    public let fields: [FieldDecision]
    /// The outcome of a removal on one side against an edit on the other, if there was one.
    public let removal: RemovalDecision?
    /// Running slips the merge stopped, so the task has at most one and a finished task none.
    public let stoppedSlips: [StoppedSlip]

    /// A decision as recorded.
    public init(
        kind: Kind, id: UUID, label: String, projectID: UUID? = nil, fields: [FieldDecision] = [],
        removal: RemovalDecision? = nil, stoppedSlips: [StoppedSlip] = []
    ) {
        self.kind = kind
        self.id = id
        self.label = label
        self.projectID = projectID
        self.fields = fields.sorted { $0.field < $1.field }
        self.removal = removal
        self.stoppedSlips = stoppedSlips.sorted { $0.slipID.uuidString < $1.slipID.uuidString }
    }

    /// The same decision with ours and theirs swapped.
    public func swappingSides() -> ItemDecision {
        ItemDecision(
            kind: kind, id: id, label: label, projectID: projectID,
            fields: fields.map { $0.swappingSides() }, removal: removal?.swappingSides(), stoppedSlips: stoppedSlips)
    }
}

/// Which side one field was taken from, by which rule, and what lost.
public struct FieldDecision: Codable, Hashable, Sendable {
    /// Why the field has its merged value.
    public enum Rule: String, Codable, Hashable, Sendable {
        /// Only one side changed the field.
        case onlyOneSideChanged
        /// Both changed it; the side with the later alterDate won.
        case laterEdit
        /// Both changed it at the same alterDate; the greater value won (a rule that ignores which side is which).
        case tieBreak
        /// Both changed a set; each side's additions and removals were applied (see `combined`).
        case combined
        /// Taken from the side the field it goes with (`leader`) came from.
        case follows
        /// The same claim on both sides: its later lease, or its release when later than the last heartbeat.
        case sameClaim
        /// Two claims that did not overlap in time: the later one.
        case laterClaim
        /// Two claims that overlapped in time: the one taken first (on a tie, the smaller claim id); the other lost.
        case earlierClaim
    }

    /// What each side did to a set merged element by element, such as "+home -work".
    public struct Combined: Codable, Hashable, Sendable {
        /// What the local machine did.
        public let ours: String
        /// What the other machine did.
        public let theirs: String

        /// What each side did.
        public init(ours: String, theirs: String) {
            self.ours = ours
            self.theirs = theirs
        }
    }

    /// The field, such as "text", "state" or a slip's stop ("timeSlips[<id>].stop" in the record).
    public let field: FieldPath
    /// The side the kept value came from.
    public let from: MergeSide
    /// The rule that chose it.
    public let rule: Rule
    /// The kept value, as text.
    public let kept: String
    /// The value that lost, as text; nil when only one side changed the field.
    public let lost: String?
    /// For a set merged element by element, what each side did.
    public let combined: Combined?
    /// For a field that follows another (`rule` is `follows`), that field.
    public let leader: String?

    /// A field decision as recorded.
    public init(
        field: FieldPath, from: MergeSide, rule: Rule, kept: String, lost: String?, combined: Combined? = nil,
        leader: String? = nil
    ) {
        self.field = field
        self.from = from
        self.rule = rule
        self.kept = kept
        self.lost = lost
        self.combined = combined
        self.leader = leader
    }

    func swappingSides() -> FieldDecision {
        FieldDecision(
            field: field, from: from.other, rule: rule, kept: kept, lost: lost,
            combined: combined.map { Combined(ours: $0.theirs, theirs: $0.ours) }, leader: leader)
    }
}

/// A removal on one side weighed against an edit on the other.
public struct RemovalDecision: Codable, Hashable, Sendable {
    /// Which won.
    public enum Outcome: String, Codable, Hashable, Sendable {
        /// The item stays removed; the edit is recorded in `lostItem`.
        case removalWon
        /// The edit was later than the removal, so the item stays.
        case editWon
    }

    /// Which won.
    public let outcome: Outcome
    /// The side that removed the item.
    public let removedOn: MergeSide
    /// When it was removed, if a tombstone says so.
    @OptionalMillisecondDate public var removedDate: Date?
    /// The latest alterDate of the edited item (for a project, of it and its tasks).
    @OptionalMillisecondDate public var editDate: Date?
    /// The edited item as JSON, when the removal discarded it.
    public let lostItem: String?

    /// A removal decision as recorded.
    public init(outcome: Outcome, removedOn: MergeSide, removedDate: Date?, editDate: Date?, lostItem: String?) {
        self.outcome = outcome
        self.removedOn = removedOn
        self.removedDate = removedDate
        self.editDate = editDate
        self.lostItem = lostItem
    }

    func swappingSides() -> RemovalDecision {
        RemovalDecision(
            outcome: outcome, removedOn: removedOn.other, removedDate: removedDate, editDate: editDate,
            lostItem: lostItem)
    }

    public static func == (a: RemovalDecision, b: RemovalDecision) -> Bool {
        a.outcome == b.outcome && a.removedOn == b.removedOn && a.lostItem == b.lostItem
            && sameMillisecond(a.removedDate, b.removedDate) && sameMillisecond(a.editDate, b.editDate)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(outcome)
        hasher.combine(removedOn)
        hasher.combine(lostItem)
    }

}

/// A running slip the merge stopped: at the start of a later running slip, or at the finish of its finished task.
public struct StoppedSlip: Codable, Hashable, Sendable {
    /// The slip.
    public let slipID: UUID
    /// Where it was stopped: the start of the later running slip, or the task's finish (or the slip's own start, when it
    /// began after the finish).
    @MillisecondDate public var stop: Date

    /// A stopped slip as recorded.
    public init(slipID: UUID, stop: Date) {
        self.slipID = slipID
        self.stop = stop
    }

    public static func == (a: StoppedSlip, b: StoppedSlip) -> Bool {
        a.slipID == b.slipID && sameMillisecond(a.stop, b.stop)
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(slipID) }

}

/// A value a merge discarded: a field's losing value, an edited item a removal won over, or a removal an edit won
/// over (a phone's cancellation a Docket edit outlived, say).
public struct LostValue: Sendable, CustomStringConvertible {
    /// Its number within the merge, from 1, as `docket merges` shows it.
    public let number: Int
    /// The item it belonged to.
    public let item: ItemDecision
    /// The field decision that lost it; nil for an edit a removal won over, or a removal an edit won over (the
    /// item's `removal` says which).
    public let field: FieldDecision?

    /// As `docket merges` numbers and says it: "[1] todo 'Buy milk' text: lost "Buy oat milk" (theirs)".
    public var description: String {
        let line =
            field.flatMap { field in item.fields.firstIndex(of: field).map { item.lines[$0] } }
            ?? item.removal.flatMap { _ in item.lines.dropFirst(item.fields.count).first }
            ?? "\(item.kind) '\(item.label)'"
        return "[\(number)] " + line
    }
}

extension MergeReport {
    /// Every value the merge discarded, numbered from 1 in the report's order: a field's losing value, an edit a
    /// removal won over, and a removal an edit won over.
    public var lostValues: [LostValue] {
        var values: [LostValue] = []
        for item in items {
            for field in item.fields where field.lost != nil {
                values.append(LostValue(number: values.count + 1, item: item, field: field))
            }
            if item.removal?.outcome == .removalWon, item.removal?.lostItem != nil {
                values.append(LostValue(number: values.count + 1, item: item, field: nil))
            }
            // NB: a removal an edit outlived is set aside too: restoring it removes the item again.
            if item.removal?.outcome == .editWon {
                values.append(LostValue(number: values.count + 1, item: item, field: nil))
            }
        }
        return values
    }
}
