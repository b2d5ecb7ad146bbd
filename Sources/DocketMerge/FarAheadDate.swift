import DocketModel
import Foundation

/// A date on an item that lies far ahead of the commit that carried it: a
/// clock that was wrong, or a date made up. Last-writer-wins lets such a date
/// win every merge, so the merge says so.
public struct FarAheadDate: Codable, Hashable, Sendable {
    /// What kind of item.
    public let kind: ItemDecision.Kind
    /// The item's id.
    public let id: UUID
    /// Its text or title, as far as known.
    public let label: String
    /// The field: "alterDate" or "removedDate".
    public let field: String
    /// The date.
    @MillisecondDate public var date: Date
    /// When the commit that carried it was made.
    @MillisecondDate public var commitDate: Date

    /// A far-ahead date as recorded.
    public init(kind: ItemDecision.Kind, id: UUID, label: String, field: String, date: Date, commitDate: Date) {
        (self.kind, self.id, self.label, self.field) = (kind, id, label, field)
        (self.date, self.commitDate) = (date, commitDate)
    }

    /// The line for people: "todo 'Buy milk' removedDate 9999-01-01T00:00:00.000Z is far ahead of its commit
    /// (2026-11-22T10:00:00.000Z)".
    public var line: String {
        "\(kind) '\(label)' \(field) \(ISODate.string(from: date)) is far ahead of its commit (\(ISODate.string(from: commitDate))); a clock was wrong or the date was made up"
    }

    public static func == (a: FarAheadDate, b: FarAheadDate) -> Bool {
        a.kind == b.kind && a.id == b.id && a.label == b.label && a.field == b.field
            && a.date.isSame(as: b.date) && a.commitDate.isSame(as: b.commitDate)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(field)
    }
}
