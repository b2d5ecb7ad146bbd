import Foundation
import Synchronization

/// The one source of "now" for every value: the system clock, replaceable by specs.
///
/// Dates keep the clock's full precision in memory; files store whole
/// milliseconds, and every value compares its dates at that precision, so a
/// value read back from its file is `==` to the value written.
public enum DocketClock {
    private static let source = Mutex<@Sendable () -> Date>({ Date() })

    /// The current time.
    public static var now: Date {
        let read = source.withLock { $0 }
        return read()
    }

    /// Replaces the clock, for example with a fixed or stepping time in a spec.
    public static func use(_ clock: @escaping @Sendable () -> Date) {
        source.withLock { $0 = clock }
    }

    /// Goes back to the system clock.
    public static func reset() {
        use { Date() }
    }

    /// The alterDate for an edit of a value last altered at `previous`:
    /// `max(now, previous + 1 ms)`, so alterDates never go backwards, even when
    /// the clock does or two edits fall in the same millisecond.
    public static func alterDate(after previous: Date?, now: Date? = nil) -> Date {
        let current = now ?? self.now
        guard let previous else { return current }
        let next = previous.docketMilliseconds + 1
        return current.docketMilliseconds >= next ? current : Date(docketMilliseconds: next)
    }
}
