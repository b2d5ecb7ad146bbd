import Foundation

/// A task of a project, with a due date, a state and the time recorded on it.
public struct ProjectTask: Identifiable, Codable, Hashable, Sendable {
    /// The identity of the task.
    public let id: UUID
    /// What the task is.
    public let title: String
    /// When the task is due.
    public let dueDate: DueDate
    /// Where the task stands.
    public let state: TaskState
    /// The time recorded on the task, oldest first; at most one runs.
    public let timeSlips: [TimeSlip]
    /// When the task was last altered; nil until the first alteration.
    public let alterDate: Date?

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
            /// Sets the state.
            case state(to: TaskState)
        }
        /// Starts or stops recording time.
        case recording(Record)
        /// What recording does.
        public enum Record: Hashable, Sendable {
            /// Starts a new slip now, unless one is running.
            case start
            /// Stops the running slip now, if there is one.
            case stop
        }
    }

    /// A new unfinished task with no due date and no time recorded.
    public init(title: String) {
        self.init(id: DocketIDs.make(), title: title, dueDate: .unknown, state: .unfinished, timeSlips: [], alterDate: nil)
    }

    /// A task exactly as stored, for decoding and merging.
    public init(id: UUID, title: String, dueDate: DueDate, state: TaskState, timeSlips: [TimeSlip], alterDate: Date?) {
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
            guard title != self.title else { return self }
            return with(title: title)
        case let .setting(.dueDate(to: dueDate)):
            guard dueDate != self.dueDate else { return self }
            return with(dueDate: dueDate)
        case let .setting(.state(to: state)):
            guard state != self.state else { return self }
            return with(state: state)
        case .recording(.start):
            guard runningSlip == nil else { return self }
            return with(timeSlips: timeSlips + [TimeSlip(start: DocketClock.now)])
        case .recording(.stop):
            guard let running = runningSlip else { return self }
            let stopped = running.alter(.setting(.stop(to: max(DocketClock.now, running.start))))
            return with(timeSlips: timeSlips.map { $0.id == running.id ? stopped : $0 })
        }
    }

    private func with(title: String? = nil, dueDate: DueDate? = nil, state: TaskState? = nil, timeSlips: [TimeSlip]? = nil) -> Self {
        ProjectTask(id: id, title: title ?? self.title, dueDate: dueDate ?? self.dueDate, state: state ?? self.state,
                    timeSlips: timeSlips ?? self.timeSlips, alterDate: DocketClock.alterDate(after: alterDate))
    }

    public static func == (a: ProjectTask, b: ProjectTask) -> Bool {
        a.id == b.id && a.title == b.title && a.dueDate == b.dueDate && a.state == b.state
            && a.timeSlips == b.timeSlips && sameMillisecond(a.alterDate, b.alterDate)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(title)
        hasher.combine(dueDate)
        hasher.combine(state)
        hasher.combine(timeSlips)
        hasher.combine(alterDate?.docketMilliseconds)
    }

    private enum CodingKeys: String, CodingKey { case id, title, dueDate, state, timeSlips, alterDate }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(UUID.self, forKey: .id),
                  title: try c.decode(String.self, forKey: .title),
                  dueDate: try c.decodeIfPresent(DueDate.self, forKey: .dueDate) ?? .unknown,
                  state: try c.decodeIfPresent(TaskState.self, forKey: .state) ?? .unfinished,
                  timeSlips: try c.decodeIfPresent([TimeSlip].self, forKey: .timeSlips) ?? [],
                  alterDate: try c.decodeDateIfPresent(forKey: .alterDate))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(title, forKey: .title)
        try c.encode(dueDate, forKey: .dueDate)
        try c.encode(state, forKey: .state)
        try c.encode(timeSlips, forKey: .timeSlips)
        try c.encodeDate(alterDate, forKey: .alterDate)
    }
}
