import Foundation

/// When a project task is due: not known yet, or a date.
public enum DueDate: Hashable, Sendable, Codable, FieldValue {
    /// No due date has been set.
    case unknown
    /// Due at this date.
    case date(Date)

    /// The date, or nil when unknown.
    public var date: Date? {
        if case let .date(date) = self { return date }
        return nil
    }

    /// `.date(date)`, or `.unknown` for nil.
    public init(_ date: Date?) {
        self = date.map(DueDate.date) ?? .unknown
    }

    public static func == (a: DueDate, b: DueDate) -> Bool { a.date.isSame(as: b.date) }

    public func hash(into hasher: inout Hasher) { date.hashField(into: &hasher) }

    // JSON: `null` for unknown, else the ISO-8601 date.
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .unknown
            return
        }
        let text = try c.decode(String.self)
        guard let date = ISODate.date(from: text) else {
            throw DecodingError.dataCorruptedError(
                in: c, debugDescription: "\"\(text)\" is not an ISO-8601 date such as 2026-11-22T09:30:00.000Z")
        }
        self = .date(date)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        guard let date else { return try c.encodeNil() }
        guard ISODate.holds(date) else {
            throw EncodingError.invalidValue(
                date,
                .init(
                    codingPath: encoder.codingPath,
                    debugDescription: "the due date is outside the years 1 to 9999 a Docket file can hold"))
        }
        try c.encode(ISODate.string(from: date))
    }

    public static func read(from reader: inout CompactReader) throws -> DueDate {
        DueDate(try Date?.read(from: &reader))
    }
    public func write(to writer: inout CompactWriter) { date.write(to: &writer) }
    public var fieldText: String { date.fieldText }
}
