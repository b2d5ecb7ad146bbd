/// Where a project task stands.
public enum TaskState: String, Hashable, Sendable, Codable, CaseIterable, NamedFieldValue {
    /// Not started, or started again after being finished.
    case unfinished
    /// Being worked on.
    case inProgress
    /// Done.
    case finished
}
