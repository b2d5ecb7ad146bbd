import Foundation

/// A stretch of time recorded on a project task: a start and, once stopped, a stop.
public struct TimeSlip: Identifiable, Sendable, FieldCoded {
    /// The identity of the slip.
    public let id: UUID
    /// When recording started.
    public let start: Date
    /// When recording stopped; nil while it runs.
    public let stop: Date?

    /// The Change DSL of a time slip.
    public enum Change: Hashable, Sendable {
        /// Sets a field.
        case setting(Setting)
        /// The fields a change can set.
        public enum Setting: Hashable, Sendable {
            /// Stops the slip at the date.
            case stop(to: Date)
        }
    }

    /// A running slip that started at `start`.
    public init(start: Date) {
        self.init(id: DocketIDs.make(), start: start, stop: nil)
    }

    /// A slip exactly as stored, for decoding and merging.
    public init(id: UUID, start: Date, stop: Date?) {
        self.id = id
        self.start = start
        self.stop = stop
    }

    /// Whether the slip is still running.
    public var isRunning: Bool { stop == nil }

    /// The slip after the change.
    public func alter(_ c: Change) -> Self {
        switch c {
        case let .setting(.stop(to: date)): TimeSlip(id: id, start: start, stop: date)
        }
    }

    // MARK: Fields

    /// Every field of a slip.
    public static let fields: [ItemField<TimeSlip>] = [
        ItemField("id", rule: .identity, get: { $0.id }, set: { TimeSlip(id: $1, start: $0.start, stop: $0.stop) }),
        ItemField("start", rule: .earliest, get: { $0.start }, set: { TimeSlip(id: $0.id, start: $1, stop: $0.stop) }),
        ItemField("stop", rule: .laterEdit, get: { $0.stop }, set: { TimeSlip(id: $0.id, start: $0.start, stop: $1) }),
    ]

    public static let blank = TimeSlip(id: .zero, start: .distantPast, stop: nil)

    // Equality at the stored precision: dates to the millisecond.
    public static func == (a: TimeSlip, b: TimeSlip) -> Bool { sameFields(a, b) }
    public func hash(into hasher: inout Hasher) { hashFields(into: &hasher) }
}
