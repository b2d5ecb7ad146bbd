import Foundation

/// A standalone todo: a text that can be completed, given a due date, and forked.
public struct TodoItem: Identifiable, Sendable, FieldCoded {
    /// What is to be done.
    public let text: String
    /// The identity of the item; a fork gets a new one.
    public let id: UUID
    /// When the item was made; a fork keeps its original's.
    public let creationDate: Date
    /// Whether the item is done.
    public let completed: Bool
    /// When the item is due: not at all, on a day, or at a time.
    public let due: DueDate
    /// When the item is due, if ever: the moment `due` stands for (a day's noon, local time).
    public var dueDate: Date? { due.date }
    /// When the item was last altered; nil until the first alteration.
    public let alterDate: Date?
    /// Its tags, sorted, each once.
    public let tags: [String]
    /// How much it matters, if said.
    public let priority: Priority?
    /// Dated annotations, oldest first.
    public let notes: [Note]
    /// When it was done; nil while open.
    public let completedDate: Date?
    /// How it repeats, if it does.
    public var recurrence: Recurrence? { repeating?.value }
    // NB: boxed, as most todos do not repeat: a recurrence is 50 bytes, and lists hold 100,000 todos.
    private let repeating: Box<Recurrence>?
    /// Until when it is hidden from the day's view and the lists of open todos, if it waits.
    public var waitDate: DueDate { planning?.value.waitDate ?? .unknown }
    /// When it is planned to be started, if said.
    public var scheduledDate: DueDate { planning?.value.scheduledDate ?? .unknown }
    /// The ids of the todos and tasks it depends on: it is blocked until they are done. Sorted, each once.
    public var dependencies: [UUID] { planning?.value.dependencies ?? [] }
    private let planning: Box<Planning>?
    /// Keys another tool's item had that Docket has no field for (a Taskwarrior `wait`, a UDA), handed back by an
    /// export to it.
    public var kept: KeptKeys { keeping?.value ?? KeptKeys() }
    private let keeping: Box<KeptKeys>?
    /// Who works on it, until when: the last claim taken on it, live or ended (see `Claim.isLive`).
    public var claim: Claim? { claiming?.value }
    // NB: boxed, as most todos are never claimed.
    private let claiming: Box<Claim>?

    /// The Change DSL of a todo.
    public enum Change: Hashable, Sendable {
        /// Sets the text.
        case text(String)
        /// Marks the item done (setting `completedDate`) or open (clearing it).
        case completed(Bool)
        /// Sets the due date to a moment, or clears it.
        case due(Date?)
        /// Sets the due date: a day, a moment, or none.
        case dueDate(to: DueDate)
        /// Makes a new item with a new id and the same alterDate, then applies the changes to it.
        case fork([Change])
        /// Adds and removes tags.
        case tagging(add: [String], remove: [String])
        /// Sets or clears the priority.
        case priority(Priority?)
        /// Adds, edits or removes a note.
        case noting(Note.Change)
        /// Sets, changes or stops how the item repeats.
        case recurrence(Recurrence?)
        /// Sets the date until which it waits (hidden from the day's view and the lists of open todos): a day (until it
        /// begins), a moment, or none.
        case wait(DueDate)
        /// Sets the date it is planned to be started: a day, a moment, or none.
        case scheduled(DueDate)
        /// Adds and removes the ids of items it depends on.
        case depending(add: [UUID], remove: [UUID])
        /// Sets the claim: taken, renewed, released, or none.
        case claim(Claim?)
    }

    /// A new open item with the given text, made now.
    public init(text: String) {
        self.init(
            id: DocketIDs.make(), text: text, creationDate: DocketClock.now, completed: false, due: .unknown,
            alterDate: nil)
    }

    /// An item exactly as stored, for decoding and merging.
    public init(
        id: UUID, text: String, creationDate: Date, completed: Bool, due: DueDate, alterDate: Date?,
        tags: [String] = [], priority: Priority? = nil, notes: [Note] = [], completedDate: Date? = nil,
        recurrence: Recurrence? = nil, kept: KeptKeys = KeptKeys(), waitDate: DueDate = .unknown,
        scheduledDate: DueDate = .unknown,
        dependencies: [UUID] = [], claim: Claim? = nil
    ) {
        self.id = id
        self.text = text
        self.creationDate = creationDate
        self.completed = completed
        self.due = due
        self.alterDate = alterDate
        self.tags = tags
        self.priority = priority
        self.notes = notes
        self.completedDate = completedDate
        self.repeating = recurrence.map(Box.init)
        self.keeping = kept.isEmpty ? nil : Box(kept)
        self.planning = Planning.box(wait: waitDate, scheduled: scheduledDate, dependencies: dependencies)
        self.claiming = claim.map(Box.init)
    }

    /// An item exactly as stored, due at a moment (or not at all).
    public init(
        id: UUID, text: String, creationDate: Date, completed: Bool, dueDate: Date?, alterDate: Date?,
        tags: [String] = [], priority: Priority? = nil, notes: [Note] = [], completedDate: Date? = nil,
        recurrence: Recurrence? = nil, kept: KeptKeys = KeptKeys()
    ) {
        self.init(
            id: id, text: text, creationDate: creationDate, completed: completed, due: DueDate(dueDate),
            alterDate: alterDate, tags: tags, priority: priority, notes: notes, completedDate: completedDate,
            recurrence: recurrence, kept: kept)
    }

    /// The item after the changes, applied in order.
    public func alter(_ changes: Change...) -> TodoItem { alter(changes) }

    /// The item after the changes, applied in order.
    public func alter(_ changes: [Change]) -> TodoItem { changes.reduce(self) { $0.applying($1) } }

    // NB: a change to the value a field already has is no alteration: the item
    // comes back unchanged, so re-applying an edit never moves its alterDate.
    private func applying(_ change: Change) -> TodoItem {
        switch change {
        case let .text(text):
            return text == self.text ? self : replacing(text: text, alterDate: nextAlterDate)
        case let .completed(completed):
            guard completed != self.completed else { return self }
            let date = nextAlterDate
            return replacing(completed: completed, alterDate: date, completedDate: .some(completed ? date : nil))
        case let .due(date):
            return applying(.dueDate(to: DueDate(date)))
        case let .dueDate(due):
            return due == self.due ? self : replacing(due: due, alterDate: nextAlterDate)
        case let .fork(changes):
            return replacing(id: DocketIDs.make()).alter(changes)
        case let .tagging(add, remove):
            let tags = Tags.applying(add: add, remove: remove, to: self.tags)
            return tags == self.tags ? self : replacing(alterDate: nextAlterDate, tags: tags)
        case let .priority(priority):
            return priority == self.priority ? self : replacing(alterDate: nextAlterDate, priority: .some(priority))
        case let .noting(change):
            let notes = self.notes.applying(change)
            return notes == self.notes ? self : replacing(alterDate: nextAlterDate, notes: notes)
        case let .recurrence(recurrence):
            return recurrence == self.recurrence
                ? self : replacing(alterDate: nextAlterDate, recurrence: .some(recurrence))
        case let .wait(date):
            return date == waitDate ? self : replacing(alterDate: nextAlterDate, waitDate: date)
        case let .scheduled(date):
            return date == scheduledDate ? self : replacing(alterDate: nextAlterDate, scheduledDate: date)
        case let .depending(add, remove):
            let ids = Dependencies.applying(add: add, remove: remove, to: dependencies)
            return ids == dependencies ? self : replacing(alterDate: nextAlterDate, dependencies: ids)
        case let .claim(claim):
            return claim == self.claim ? self : replacing(alterDate: nextAlterDate, claim: .some(claim))
        }
    }

    private var nextAlterDate: Date { DocketClock.alterDate(after: alterDate) }

    /// The instance after this one in its series, open and due one interval on,
    /// for this instance done at `done`; nil when the item does not repeat.
    /// Every machine makes the same id for it; its notes stay with this one, and its wait and scheduled dates
    /// keep their distance from the due date.
    public func nextOccurrence(done: Date, calendar: Calendar = DocketClock.calendar) -> TodoItem? {
        guard let recurrence, recurrence.occurrence < Recurrence.lastOccurrence,
            let next = recurrence.nextDue(due: due, done: done, calendar: calendar)
        else { return nil }
        return replacing(
            id: recurrence.nextID, creationDate: done, completed: false, due: next, alterDate: .some(nil),
            notes: [], completedDate: .some(nil),
            recurrence: .some(recurrence.numbered(recurrence.occurrence + 1)),
            waitDate: Recurrence.carried(waitDate, from: due, done: done, to: next, calendar: calendar),
            scheduledDate: Recurrence.carried(scheduledDate, from: due, done: done, to: next, calendar: calendar),
            claim: .some(nil))
    }

    /// This item with some fields replaced; a nil argument keeps the field.
    /// Every copy of a todo made from another goes through here (or a field's
    /// `set`), starting from the item it copies: a field added to `TodoItem`
    /// is carried by every copy without an edit (`ItemCopySpec` checks each).
    public func replacing(
        id: UUID? = nil, text: String? = nil, creationDate: Date? = nil, completed: Bool? = nil,
        due: DueDate? = nil, alterDate: Date?? = nil, tags: [String]? = nil, priority: Priority?? = nil,
        notes: [Note]? = nil, completedDate: Date?? = nil, recurrence: Recurrence?? = nil, kept: KeptKeys? = nil,
        waitDate: DueDate? = nil, scheduledDate: DueDate? = nil, dependencies: [UUID]? = nil, claim: Claim?? = nil
    ) -> TodoItem {
        // NB: a field not replaced keeps its box as it is: a cache read sets each of 16 fields in turn, and unboxing
        // and boxing every field again at each step made reading 10,000 todos from the cache twice as slow.
        let planning =
            waitDate == nil && scheduledDate == nil && dependencies == nil
            ? self.planning
            : Planning.box(
                wait: waitDate ?? self.waitDate, scheduled: scheduledDate ?? self.scheduledDate,
                dependencies: dependencies ?? self.dependencies)
        return TodoItem(
            id: id ?? self.id, text: text ?? self.text, creationDate: creationDate ?? self.creationDate,
            completed: completed ?? self.completed, due: due ?? self.due,
            alterDate: alterDate ?? self.alterDate,
            tags: tags ?? self.tags, priority: priority ?? self.priority, notes: notes ?? self.notes,
            completedDate: completedDate ?? self.completedDate,
            repeating: recurrence.map { $0.map(Box.init) } ?? repeating,
            keeping: kept.map { $0.isEmpty ? nil : Box($0) } ?? keeping, planning: planning,
            claiming: claim.map { $0.map(Box.init) } ?? claiming)
    }

    private init(
        id: UUID, text: String, creationDate: Date, completed: Bool, due: DueDate, alterDate: Date?, tags: [String],
        priority: Priority?, notes: [Note], completedDate: Date?, repeating: Box<Recurrence>?,
        keeping: Box<KeptKeys>?, planning: Box<Planning>?, claiming: Box<Claim>?
    ) {
        self.id = id
        self.text = text
        self.creationDate = creationDate
        self.completed = completed
        self.due = due
        self.alterDate = alterDate
        self.tags = tags
        self.priority = priority
        self.notes = notes
        self.completedDate = completedDate
        self.repeating = repeating
        self.keeping = keeping
        self.planning = planning
        self.claiming = claiming
    }

    // MARK: Fields

    /// Every field of a todo: its file, the cache, the merge and change descriptions come from this list.
    /// The fields after `alterDate` came in store format 2 (the wait and scheduled dates and the dependencies in
    /// format 3) and are left out of a file while empty.
    public static let fields: [ItemField<TodoItem>] = [
        ItemField("id", rule: .identity, get: { $0.id }, set: { $0.replacing(id: $1) }),
        ItemField("text", rule: .laterEdit, get: { $0.text }, set: { $0.replacing(text: $1) }),
        ItemField(
            "creationDate", label: "creation date", rule: .earliest, get: { $0.creationDate },
            set: { $0.replacing(creationDate: $1) }),
        ItemField(
            "completed", rule: .laterEdit, default: false, get: { $0.completed }, set: { $0.replacing(completed: $1) }),
        ItemField(
            "dueDate", label: "due date", rule: .laterEdit, default: DueDate.unknown, get: { $0.due },
            set: { $0.replacing(due: $1) }),
        ItemField(
            "alterDate", label: "alter date", rule: .latest, get: { $0.alterDate }, set: { $0.replacing(alterDate: $1) }
        ),
        ItemField(
            "tags", rule: .set, default: [String](), omitWhenAbsent: true, check: Tags.problem(in:), get: { $0.tags },
            set: { $0.replacing(tags: Tags.normalized($1)) }),
        ItemField(
            "priority", rule: .laterEdit, omitWhenAbsent: true, get: { $0.priority },
            set: { $0.replacing(priority: .some($1)) }),
        ItemField(
            "notes", rule: .notes, default: [Note](), omitWhenAbsent: true, get: { $0.notes },
            set: { $0.replacing(notes: Note.inOrder($1)) }),
        ItemField(
            "completedDate", label: "completion date", rule: .follows("completed"), omitWhenAbsent: true,
            get: { $0.completedDate }, set: { $0.replacing(completedDate: .some($1)) }),
        ItemField(
            "recurrence", rule: .laterEdit, omitWhenAbsent: true, get: { $0.recurrence },
            set: { $0.replacing(recurrence: .some($1)) }),
        // Store format 3:
        ItemField(
            "waitDate", label: "wait date", rule: .laterEdit, default: DueDate.unknown, omitWhenAbsent: true,
            get: { $0.waitDate }, set: { $0.replacing(waitDate: $1) }),
        ItemField(
            "scheduledDate", label: "scheduled date", rule: .laterEdit, default: DueDate.unknown, omitWhenAbsent: true,
            get: { $0.scheduledDate }, set: { $0.replacing(scheduledDate: $1) }),
        ItemField(
            "dependencies", rule: .set, default: [UUID](), omitWhenAbsent: true, get: { $0.dependencies },
            set: { $0.replacing(dependencies: Dependencies.normalized($1)) }),
        ItemField(
            "kept", label: "kept keys", rule: .laterEdit, default: KeptKeys(), omitWhenAbsent: true, get: { $0.kept },
            set: { $0.replacing(kept: $1) }),
        // NB: no format of its own: a format-3 docket keeps the key as it is (a claim is a lease, not data to lose).
        ItemField(
            "claim", rule: .claim, omitWhenAbsent: true, check: Claim.problem(in:), get: { $0.claim },
            set: { $0.replacing(claim: .some($1)) }),
    ]

    public static let blank = TodoItem(
        id: .zero, text: "", creationDate: .distantPast, completed: false,
        due: .unknown, alterDate: nil)

    /// The compact form (the cache's) read in one go, in `fields`' order, each value as its field's `set` takes it.
    /// NB: reading field by field (`readingEachField`) copied the todo at each of its 16 fields, retaining and
    /// releasing every other one: half of reading 10,000 todos from the cache. `ItemCopySpec` holds the two the same.
    public static func read(from reader: inout CompactReader) throws -> TodoItem {
        let id = try UUID.read(from: &reader)
        let text = try String.read(from: &reader)
        let creationDate = try Date.read(from: &reader)
        let completed = try Bool.read(from: &reader)
        let due = try DueDate.read(from: &reader)
        let alterDate = try Date?.read(from: &reader)
        let tags = Tags.normalized(try [String].read(from: &reader))
        let priority = try Priority?.read(from: &reader)
        let notes = Note.inOrder(try [Note].read(from: &reader))
        let completedDate = try Date?.read(from: &reader)
        let recurrence = try Recurrence?.read(from: &reader)
        let waitDate = try DueDate.read(from: &reader)
        let scheduledDate = try DueDate.read(from: &reader)
        let dependencies = Dependencies.normalized(try [UUID].read(from: &reader))
        let kept = try KeptKeys.read(from: &reader)
        let claim = try Claim?.read(from: &reader)
        return TodoItem(
            id: id, text: text, creationDate: creationDate, completed: completed, due: due, alterDate: alterDate,
            tags: tags, priority: priority, notes: notes, completedDate: completedDate, recurrence: recurrence,
            kept: kept, waitDate: waitDate, scheduledDate: scheduledDate, dependencies: dependencies, claim: claim)
    }

    // Equality at the stored precision: dates to the millisecond.
    public static func == (a: TodoItem, b: TodoItem) -> Bool { sameFields(a, b) }
    public func hash(into hasher: inout Hasher) { hashFields(into: &hasher) }
}
