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

    /// How far ahead of a clock a date may lie and still be believed (a day): further ahead, a clock was wrong or
    /// the date was made up. The merge report names such dates (`FarAheadDate`), and an edit does not outweigh one.
    public static let farAheadHorizon: TimeInterval = 86_400

    /// Whether `date` lies further ahead of `now` than `farAheadHorizon`.
    public static func isFarAhead(_ date: Date, of now: Date) -> Bool {
        date.docketMilliseconds > now.docketMilliseconds + Int64(farAheadHorizon * 1000)
    }

    /// The alterDate for an edit of a value last altered at `previous`:
    /// `max(now, previous + 1 ms)`, so alterDates never go backwards, even when
    /// the clock does or two edits fall in the same millisecond; but `now` when
    /// `previous` is far ahead of it (`isFarAhead`), which also keeps it within
    /// the last millisecond a file can hold (9999-12-31T23:59:59.999Z).
    ///
    /// NB: an edit that outweighed a far-ahead date would take that date plus a millisecond: two machines editing
    /// an item pinned at 9999 concurrently made the same alterDate, and the merge, seeing no later edit, kept the
    /// greater value, not the later edit. Taking the clock's time instead lets the later edit win, and the merge's
    /// three-way rules (a field only one side changed, a restore of an item the other side left removed) do not
    /// need the edit to be dated after what it replaces.
    public static func alterDate(after previous: Date?, now: Date? = nil) -> Date {
        let current = now ?? self.now
        guard let previous, !isFarAhead(previous, of: current) else { return current }
        let next = min(previous.docketMilliseconds, ISODate.range.upperBound - 1) + 1
        return current.docketMilliseconds >= next ? current : Date(docketMilliseconds: next)
    }

    /// Whether an item's alterDate, `new`, did not move since `old`, the one it had when a commit dated `now` was
    /// made: the content changed by hand or by another tool, or an edit of Docket's. An edit of Docket's moves it
    /// forward, or, from a date far ahead of that commit, to another date (`alterDate(after:now:)`).
    public static func isUnmoved(_ new: Date?, since old: Date?, at now: Date?) -> Bool {
        let (n, o) = (new?.docketMilliseconds ?? .min, old?.docketMilliseconds ?? .min)
        if let old, n != o, isFarAhead(old, of: now ?? self.now) { return false }
        return n <= o
    }
}
