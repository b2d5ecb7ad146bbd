import Foundation

/// The record of a removal: what was removed and when, so a merge can weigh
/// the removal against a concurrent edit. A tombstone never shows in the lists.
public struct Tombstone: Identifiable, Codable, Hashable, Sendable {
    /// What kind of thing was removed.
    public enum Kind: String, Codable, Hashable, Sendable {
        /// A standalone todo.
        case todo
        /// A project, with its tasks.
        case project
        /// A task of a project.
        case task
    }

    /// The id of the removed item.
    public let id: UUID
    /// What kind of item it was.
    public let kind: Kind
    /// For a task, the project it belonged to.
    public let projectID: UUID?
    /// When it was removed.
    public let removedDate: Date

    /// A tombstone exactly as stored.
    public init(id: UUID, kind: Kind, projectID: UUID? = nil, removedDate: Date) {
        self.id = id
        self.kind = kind
        self.projectID = projectID
        self.removedDate = removedDate
    }

    public static func == (a: Tombstone, b: Tombstone) -> Bool {
        a.id == b.id && a.kind == b.kind && a.projectID == b.projectID && sameMillisecond(a.removedDate, b.removedDate)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(kind)
        hasher.combine(projectID)
        hasher.combine(removedDate.docketMilliseconds)
    }

    private enum CodingKeys: String, CodingKey { case id, kind, projectID = "project", removedDate }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(UUID.self, forKey: .id),
                  kind: try c.decode(Kind.self, forKey: .kind),
                  projectID: try c.decodeIfPresent(UUID.self, forKey: .projectID),
                  removedDate: try c.decodeDate(forKey: .removedDate))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encodeIfPresent(projectID, forKey: .projectID)
        try c.encodeDate(removedDate, forKey: .removedDate)
    }
}
