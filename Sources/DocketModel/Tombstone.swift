import Foundation

/// The record of a removal: what was removed and when, so a merge can weigh
/// the removal against a concurrent edit. A tombstone never shows in the lists.
public struct Tombstone: Identifiable, Sendable, FieldCoded {
    /// What kind of thing was removed.
    public enum Kind: String, Codable, Hashable, Sendable, NamedFieldValue {
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

    // MARK: Fields

    /// Every field of a tombstone.
    public static let fields: [ItemField<Tombstone>] = [
        ItemField(
            "id", rule: .identity, get: { $0.id },
            set: { Tombstone(id: $1, kind: $0.kind, projectID: $0.projectID, removedDate: $0.removedDate) }),
        ItemField(
            "kind", rule: .identity, get: { $0.kind },
            set: { Tombstone(id: $0.id, kind: $1, projectID: $0.projectID, removedDate: $0.removedDate) }),
        ItemField(
            "project", rule: .identity, omitWhenAbsent: true, get: { $0.projectID },
            set: { Tombstone(id: $0.id, kind: $0.kind, projectID: $1, removedDate: $0.removedDate) }),
        ItemField(
            "removedDate", label: "removal date", rule: .latest, get: { $0.removedDate },
            set: { Tombstone(id: $0.id, kind: $0.kind, projectID: $0.projectID, removedDate: $1) }),
    ]

    public static let blank = Tombstone(id: .zero, kind: .todo, removedDate: .distantPast)

    // Equality at the stored precision: dates to the millisecond.
    public static func == (a: Tombstone, b: Tombstone) -> Bool { sameFields(a, b) }
    public func hash(into hasher: inout Hasher) { hashFields(into: &hasher) }
}
