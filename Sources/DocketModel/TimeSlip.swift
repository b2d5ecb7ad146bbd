import Foundation

/// A stretch of time recorded on a project task: a start and, once stopped, a stop.
public struct TimeSlip: Identifiable, Codable, Hashable, Sendable {
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

    public static func == (a: TimeSlip, b: TimeSlip) -> Bool {
        a.id == b.id && sameMillisecond(a.start, b.start) && sameMillisecond(a.stop, b.stop)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(start.docketMilliseconds)
        hasher.combine(stop?.docketMilliseconds)
    }

    private enum CodingKeys: String, CodingKey { case id, start, stop }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(UUID.self, forKey: .id),
                  start: try c.decodeDate(forKey: .start),
                  stop: try c.decodeDateIfPresent(forKey: .stop))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encodeDate(start, forKey: .start)
        try c.encodeDate(stop, forKey: .stop)
    }
}
