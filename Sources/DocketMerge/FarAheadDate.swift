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
    public let date: Date
    /// When the commit that carried it was made.
    public let commitDate: Date

    /// A far-ahead date as recorded.
    public init(kind: ItemDecision.Kind, id: UUID, label: String, field: String, date: Date, commitDate: Date) {
        (self.kind, self.id, self.label, self.field, self.date, self.commitDate) = (kind, id, label, field, date, commitDate)
    }

    /// The line for people: "todo 'Buy milk' removedDate 9999-01-01T00:00:00.000Z is far ahead of its commit (2026-11-22T10:00:00.000Z)".
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

    private enum CodingKeys: String, CodingKey { case kind, id, label, field, date, commitDate }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(kind: try c.decode(ItemDecision.Kind.self, forKey: .kind), id: try c.decode(UUID.self, forKey: .id),
                  label: try c.decode(String.self, forKey: .label), field: try c.decode(String.self, forKey: .field),
                  date: try c.decodeDate(forKey: .date), commitDate: try c.decodeDate(forKey: .commitDate))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(id, forKey: .id)
        try c.encode(label, forKey: .label)
        try c.encode(field, forKey: .field)
        try c.encodeDate(date, forKey: .date)
        try c.encodeDate(commitDate, forKey: .commitDate)
    }
}
