import Foundation

/// The one source of "now" for every value: the system clock, replaceable by specs.
///
/// Dates keep the clock's full precision in memory; files store whole
/// milliseconds, and every value compares its dates at that precision, so a
/// value read back from its file is `==` to the value written.
public enum DocketClock {
    private static let source = Locked<@Sendable () -> Date>({ Date() })

    /// The clock of the call under way, when its store has one of its own (`StoreQueue`'s `clock`); it wins over
    /// the process's.
    @TaskLocal public static var scoped: (@Sendable () -> Date)?

    /// The current time.
    public static var now: Date {
        if let scoped { return scoped() }
        let read = source.withLock { $0 }
        return read()
    }

    /// Replaces the clock, for example with a fixed or stepping time in a spec.
    public static func use(_ clock: @escaping @Sendable () -> Date) {
        source.withLock { $0 = clock }
    }

    /// Goes back to the system clock and the system's time zone.
    public static func reset() {
        use { Date() }
        use(timeZone: .current)
    }

    private static let local = Locked<Calendar>(gregorian(in: .current))

    /// The Gregorian calendar in the local time zone: the days a due date without a time names, the time of day a
    /// repeating due keeps, and the offset a due with a time is written with. The system's time zone, replaceable by
    /// specs.
    public static var calendar: Calendar { local.withLock { $0 } }

    /// The local time zone: `calendar`'s.
    public static var timeZone: TimeZone { calendar.timeZone }

    /// Replaces the local time zone, for example with a fixed one in a spec.
    public static func use(timeZone: TimeZone) {
        let calendar = gregorian(in: timeZone)
        local.withLock { $0 = calendar }
    }

    /// The Gregorian calendar in `zone`.
    public static func gregorian(in zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// The alterDate for an edit of a value last altered at `previous`:
    /// `max(now, previous + 1 ms)`, so alterDates never go backwards, even when
    /// the clock does or two edits fall in the same millisecond; never past
    /// the last millisecond a file can hold (9999-12-31T23:59:59.999Z).
    ///
    /// NB: an item a remote or an import dated at that last millisecond could
    /// otherwise never be edited, completed, removed or restored again: its
    /// next alterDate did not fit the file. Its next edit takes that same date.
    public static func alterDate(after previous: Date?, now: Date? = nil) -> Date {
        let current = now ?? self.now
        guard let previous else { return current }
        let next = min(previous.docketMilliseconds, ISODate.range.upperBound - 1) + 1
        return current.docketMilliseconds >= next ? current : Date(docketMilliseconds: next)
    }
}
