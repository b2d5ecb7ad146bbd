import Foundation

/// The one source of new ids: random UUIDs, replaceable by specs so a seeded
/// run makes the same ids every time.
public enum DocketIDs {
    private static let source = Locked<@Sendable () -> UUID>({ UUID() })

    /// A new id.
    public static func make() -> UUID {
        let read = source.withLock { $0 }
        return read()
    }

    /// Replaces the id source, for example with a seeded generator in a spec.
    public static func use(_ make: @escaping @Sendable () -> UUID) {
        source.withLock { $0 = make }
    }

    /// Goes back to random UUIDs.
    public static func reset() {
        use { UUID() }
    }
}
