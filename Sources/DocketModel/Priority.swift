/// How much a todo or task matters: high, medium or low (or none, as nil).
public enum Priority: String, Hashable, Sendable, Codable, CaseIterable, NamedFieldValue {
    /// Comes first.
    case high
    /// Between.
    case medium
    /// Comes after every other priority, before none.
    case low

    /// Where it sorts: high first, then medium, low, and none last.
    public static func rank(_ priority: Priority?) -> Int {
        switch priority {
        case .high: 0
        case .medium: 1
        case .low: 2
        case nil: 3
        }
    }
}
