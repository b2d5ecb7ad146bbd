import DocketModel
import Foundation

/// The time recorded per task and project; a running slip counts up to `now`.
public struct TimeReport: Encodable, Sendable {
    /// One task's time.
    public struct TaskTime: Encodable, Sendable {
        /// The task's id.
        public let id: UUID
        /// Its title.
        public let title: String
        /// Whole seconds recorded.
        public let seconds: Int
        /// Whether a slip is running.
        public let running: Bool
        /// When it was finished, if it is.
        @OptionalMillisecondDate public var finished: Date?
    }

    /// One project's time.
    public struct ProjectTime: Encodable, Sendable {
        /// The project's id.
        public let id: UUID
        /// Its title.
        public let title: String
        /// Whole seconds recorded on its tasks.
        public let seconds: Int
        /// Its tasks, in order.
        public let tasks: [TaskTime]
    }

    /// Each project, in order.
    public let projects: [ProjectTime]
    /// Whole seconds recorded in all.
    public let seconds: Int

    /// The report of these projects at `now`, counting only the time between `since` and `until` when given.
    public init(_ projects: [Project], now: Date, since: Date? = nil, until: Date? = nil) {
        self.projects = projects.map { project in
            let tasks = project.tasks.map(\.asReported).map {
                TaskTime(
                    id: $0.id, title: $0.title, seconds: Int($0.recorded(until: now, since: since, before: until)),
                    running: $0.runningSlip != nil,
                    finished: $0.state == .finished ? $0.completedDate : nil)
            }
            return ProjectTime(
                id: project.id, title: project.title, seconds: tasks.reduce(0) { $0 + $1.seconds }, tasks: tasks)
        }
        seconds = self.projects.reduce(0) { $0 + $1.seconds }
    }
}

extension ProjectTask {
    /// The task as its time is reported: a finished task records no time, so a slip a hand edit or another tool left
    /// running on it stops at the finish.
    public var asReported: ProjectTask { stoppingSlipAtFinish()?.task ?? self }

    /// Seconds recorded on the task; a running slip counts up to `now`.
    public func recorded(until now: Date) -> TimeInterval {
        timeSlips.reduce(0) { $0 + max(0, ($1.stop ?? now).timeIntervalSince($1.start)) }
    }

    /// Seconds recorded between `since` and `before` (either open); a running slip counts up to `now`.
    public func recorded(until now: Date, since: Date?, before: Date?) -> TimeInterval {
        timeSlips.reduce(0) { total, slip in
            let (start, stop) = slip.clipped(now: now, since: since, before: before)
            return total + max(0, stop.timeIntervalSince(start))
        }
    }
}

extension TimeSlip {
    /// The slip's start and stop within `since`…`before` (a running slip stops at `now`); stop ≤ start when it lies
    /// outside.
    public func clipped(now: Date, since: Date?, before: Date?) -> (start: Date, stop: Date) {
        var (from, to) = (start, stop ?? now)
        if let since, since > from { from = since }
        if let before, before < to { to = before }
        return (from, to)
    }
}
