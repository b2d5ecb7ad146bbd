import Foundation

/// A task of a project, with a due date, a state and the time recorded on it.
public struct ProjectTask: Identifiable, Sendable, FieldCoded {
    /// The identity of the task.
    public let id: UUID
    /// What the task is.
    public let title: String
    /// When the task is due: not at all, on a day, or at a time.
    public let dueDate: DueDate
    /// Where the task stands.
    public let state: TaskState
    /// The time recorded on the task, oldest first; at most one runs.
    public let timeSlips: [TimeSlip]
    /// When the task was last altered; nil until the first alteration.
    public let alterDate: Date?
    /// Its tags, sorted, each once.
    public let tags: [String]
    /// How much it matters, if said.
    public let priority: Priority?
    /// Dated annotations, oldest first.
    public let notes: [Note]
    /// When it was finished; nil while it is not.
    public let completedDate: Date?
    /// When it was made; nil for a task made before Docket kept it.
    public let creationDate: Date?
    /// How it repeats, if it does: finishing it makes the next instance in its project.
    public var recurrence: Recurrence? { repeating?.value }
    private let repeating: Box<Recurrence>?
    /// Until when it is hidden from the day's view and the lists of open items, if it waits.
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
    // NB: boxed, as most tasks are never claimed.
    private let claiming: Box<Claim>?

    /// The Change DSL of a project task.
    public enum Change: Hashable, Sendable {
        /// Sets a field.
        case setting(Setting)
        /// The fields a change can set.
        public enum Setting: Hashable, Sendable {
            /// Sets the title.
            case title(to: String)
            /// Sets the due date.
            case dueDate(to: DueDate)
            /// Sets the state; finishing sets `completedDate` and stops a running slip there, any other state clears
            /// it.
            case state(to: TaskState)
            /// Sets or clears the priority.
            case priority(to: Priority?)
            /// Sets, changes or stops how the task repeats.
            case recurrence(to: Recurrence?)
            /// Sets the date until which it waits (hidden from the day's view): a day (until it begins), a moment, or
            /// none.
            case waitDate(to: DueDate)
            /// Sets the date it is planned to be started: a day, a moment, or none.
            case scheduledDate(to: DueDate)
            /// Sets the claim: taken, renewed, released, or none.
            case claim(to: Claim?)
        }
        /// Adds and removes tags.
        case tagging(add: [String], remove: [String])
        /// Adds and removes the ids of items it depends on.
        case depending(add: [UUID], remove: [UUID])
        /// Adds, edits or removes a note.
        case noting(Note.Change)
        /// Starts or stops recording time.
        case recording(Record)
        /// What recording does.
        public enum Record: Hashable, Sendable {
            /// Starts a new slip now, unless one is running or the task is finished.
            case start
            /// Stops the running slip now, if there is one.
            case stop
        }
    }

    /// A new unfinished task with no due date and no time recorded, made now.
    public init(title: String) {
        self.init(
            id: DocketIDs.make(), title: title, dueDate: .unknown, state: .unfinished, timeSlips: [], alterDate: nil,
            creationDate: DocketClock.now)
    }

    /// A task exactly as stored, for decoding and merging.
    public init(
        id: UUID, title: String, dueDate: DueDate, state: TaskState, timeSlips: [TimeSlip], alterDate: Date?,
        tags: [String] = [], priority: Priority? = nil, notes: [Note] = [], completedDate: Date? = nil,
        creationDate: Date? = nil, recurrence: Recurrence? = nil, kept: KeptKeys = KeptKeys(),
        waitDate: DueDate = .unknown,
        scheduledDate: DueDate = .unknown, dependencies: [UUID] = [], claim: Claim? = nil
    ) {
        self.planning = Planning.box(wait: waitDate, scheduled: scheduledDate, dependencies: dependencies)
        self.creationDate = creationDate
        self.claiming = claim.map(Box.init)
        self.repeating = recurrence.map(Box.init)
        self.keeping = kept.isEmpty ? nil : Box(kept)
        self.tags = tags
        self.priority = priority
        self.notes = notes
        self.completedDate = completedDate
        self.id = id
        self.title = title
        self.dueDate = dueDate
        self.state = state
        self.timeSlips = timeSlips
        self.alterDate = alterDate
    }

    /// The running slip, if any.
    public var runningSlip: TimeSlip? { timeSlips.last(where: \.isRunning) }

    /// The task after the changes, applied in order.
    public func alter(by changes: Change...) -> Self { alter(by: changes) }

    /// The task after the changes, applied in order.
    public func alter(by changes: [Change]) -> Self { changes.reduce(self) { $0.applying($1) } }

    private func applying(_ change: Change) -> Self {
        switch change {
        case let .setting(.title(to: title)):
            title == self.title ? self : replacing(title: title, alterDate: nextAlterDate)
        case let .setting(.dueDate(to: dueDate)):
            dueDate == self.dueDate ? self : replacing(dueDate: dueDate, alterDate: nextAlterDate)
        case let .setting(.state(to: state)):
            state == self.state ? self : moving(to: state)
        case let .setting(.priority(to: priority)):
            priority == self.priority ? self : replacing(alterDate: nextAlterDate, priority: .some(priority))
        case let .setting(.recurrence(to: recurrence)):
            recurrence == self.recurrence ? self : replacing(alterDate: nextAlterDate, recurrence: .some(recurrence))
        case let .setting(.waitDate(to: date)):
            date == waitDate ? self : replacing(alterDate: nextAlterDate, waitDate: date)
        case let .setting(.scheduledDate(to: date)):
            date == scheduledDate ? self : replacing(alterDate: nextAlterDate, scheduledDate: date)
        case let .setting(.claim(to: claim)):
            claim == self.claim ? self : replacing(alterDate: nextAlterDate, claim: .some(claim))
        case let .depending(add, remove):
            Dependencies.applying(add: add, remove: remove, to: dependencies) == dependencies
                ? self
                : replacing(
                    alterDate: nextAlterDate,
                    dependencies: Dependencies.applying(add: add, remove: remove, to: dependencies))
        case let .tagging(add, remove):
            Tags.applying(add: add, remove: remove, to: tags) == tags
                ? self : replacing(alterDate: nextAlterDate, tags: Tags.applying(add: add, remove: remove, to: tags))
        case let .noting(change):
            notes.applying(change) == notes ? self : replacing(alterDate: nextAlterDate, notes: notes.applying(change))
        case .recording(.start):
            runningSlip != nil || state == .finished
                ? self : replacing(timeSlips: timeSlips + [TimeSlip(start: DocketClock.now)], alterDate: nextAlterDate)
        case .recording(.stop):
            if let running = runningSlip {
                replacing(
                    timeSlips: timeSlips.map {
                        $0.id == running.id
                            ? running.alter(.setting(.stop(to: max(DocketClock.now, running.start)))) : $0
                    },
                    alterDate: nextAlterDate)
            } else {
                self
            }
        }
    }

    private var nextAlterDate: Date { DocketClock.alterDate(after: alterDate) }

    /// The task in a new state: finished at its alterDate (its running slip stopped there), or not finished.
    private func moving(to state: TaskState) -> Self {
        let date = nextAlterDate
        let moved = replacing(state: state, alterDate: date, completedDate: .some(state == .finished ? date : nil))
        return moved.stoppingSlipAtFinish()?.task ?? moved
    }

    /// A finished task records no time: this task with its running slip stopped at the finish (its completedDate,
    /// else its alterDate), or at the slip's own start when it began later, on a machine that had not yet seen the
    /// finish; nil when the task is not finished or no slip runs. The finish is what stops it, wherever it is made:
    /// `docket done`, `task state`, a calendar, an import, a merge.
    public func stoppingSlipAtFinish() -> (task: ProjectTask, slip: UUID, stop: Date)? {
        guard state == .finished, let running = runningSlip else { return nil }
        let finish = completedDate ?? alterDate ?? running.start
        let stop = max(finish, running.start)
        return (
            replacing(timeSlips: timeSlips.map { $0.id == running.id ? running.alter(.setting(.stop(to: stop))) : $0 }),
            running.id, stop
        )
    }

    /// This task with some fields replaced; a nil argument keeps the field.
    /// Every copy of a task made from another goes through here (or a field's
    /// `set`), starting from the task it copies, so a field added later is carried.
    public func replacing(
        id: UUID? = nil, title: String? = nil, dueDate: DueDate? = nil, state: TaskState? = nil,
        timeSlips: [TimeSlip]? = nil, alterDate: Date?? = nil, tags: [String]? = nil, priority: Priority?? = nil,
        notes: [Note]? = nil, completedDate: Date?? = nil, creationDate: Date?? = nil, recurrence: Recurrence?? = nil,
        kept: KeptKeys? = nil, waitDate: DueDate? = nil, scheduledDate: DueDate? = nil, dependencies: [UUID]? = nil,
        claim: Claim?? = nil
    ) -> Self {
        ProjectTask(
            id: id ?? self.id, title: title ?? self.title, dueDate: dueDate ?? self.dueDate, state: state ?? self.state,
            timeSlips: timeSlips ?? self.timeSlips, alterDate: alterDate ?? self.alterDate, tags: tags ?? self.tags,
            priority: priority ?? self.priority, notes: notes ?? self.notes,
            completedDate: completedDate ?? self.completedDate,
            creationDate: creationDate ?? self.creationDate, recurrence: recurrence ?? self.recurrence,
            kept: kept ?? self.kept, waitDate: waitDate ?? self.waitDate,
            scheduledDate: scheduledDate ?? self.scheduledDate, dependencies: dependencies ?? self.dependencies,
            claim: claim ?? self.claim)
    }

    /// The instance after this one in its series: unfinished, with no time recorded and due one interval on,
    /// for this instance finished at `done`; nil when the task does not repeat. Every machine makes the same id for it.
    /// Its wait and scheduled dates keep their distance from the due date.
    public func nextOccurrence(done: Date, calendar: Calendar = DocketClock.calendar) -> ProjectTask? {
        guard let recurrence, recurrence.occurrence < Recurrence.lastOccurrence,
            let next = recurrence.nextDue(due: dueDate, done: done, calendar: calendar)
        else { return nil }
        return replacing(
            id: recurrence.nextID, dueDate: next, state: .unfinished, timeSlips: [], alterDate: .some(nil),
            notes: [],
            completedDate: .some(nil), creationDate: .some(done),
            recurrence: .some(recurrence.numbered(recurrence.occurrence + 1)),
            waitDate: Recurrence.carried(waitDate, from: dueDate, done: done, to: next, calendar: calendar),
            scheduledDate: Recurrence.carried(scheduledDate, from: dueDate, done: done, to: next, calendar: calendar),
            claim: .some(nil))
    }

    // MARK: Fields

    /// Every field of a task: its file, the merge and change descriptions come from this list.
    /// The fields after `alterDate` came in store format 2 (the wait and scheduled dates and the dependencies in
    /// format 3) and are left out of a file while empty.
    public static let fields: [ItemField<ProjectTask>] = [
        ItemField("id", rule: .identity, get: { $0.id }, set: { $0.replacing(id: $1) }),
        ItemField("title", rule: .laterEdit, get: { $0.title }, set: { $0.replacing(title: $1) }),
        ItemField(
            "dueDate", label: "due date", rule: .laterEdit, default: DueDate.unknown, get: { $0.dueDate },
            set: { $0.replacing(dueDate: $1) }),
        ItemField(
            "state", rule: .laterEdit, default: TaskState.unfinished, get: { $0.state },
            set: { $0.replacing(state: $1) }),
        ItemField(
            "timeSlips", label: "time slips", rule: .timeSlips, default: [TimeSlip](), get: { $0.timeSlips },
            set: { $0.replacing(timeSlips: $1) }),
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
            "completedDate", label: "completion date", rule: .follows("state"), omitWhenAbsent: true,
            get: { $0.completedDate }, set: { $0.replacing(completedDate: .some($1)) }),
        // NB: also a format-2 key: an older format-2 docket keeps it as a key it does not know, and it is set once,
        // when the task is made.
        ItemField(
            "creationDate", label: "creation date", rule: .earliest, omitWhenAbsent: true,
            get: { $0.creationDate }, set: { $0.replacing(creationDate: .some($1)) }),
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

    public static let blank = ProjectTask(
        id: .zero, title: "", dueDate: .unknown, state: .unfinished, timeSlips: [], alterDate: nil)

    // Equality at the stored precision: dates to the millisecond.
    public static func == (a: ProjectTask, b: ProjectTask) -> Bool { sameFields(a, b) }
    public func hash(into hasher: inout Hasher) { hashFields(into: &hasher) }
}
