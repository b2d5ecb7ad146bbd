import Foundation

/// The one source of new ids: random UUIDs, replaceable by specs so a seeded
/// run makes the same ids every time.
public enum DocketIDs {
    private static let source = Locked<@Sendable () -> UUID>({ UUID() })

    /// The id source of the call under way, when its store has one of its own (`StoreQueue`'s `ids`); it wins over
    /// the process's.
    @TaskLocal public static var scoped: (@Sendable () -> UUID)?

    /// A new id.
    public static func make() -> UUID {
        if let scoped { return scoped() }
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
