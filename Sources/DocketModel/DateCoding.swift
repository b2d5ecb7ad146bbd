import Foundation

// Dates are coded by the values themselves, as ISO-8601 strings, so a value
// has the same JSON whatever `JSONEncoder` date strategy a caller set.

extension KeyedEncodingContainer {
    /// Encodes a date as ISO-8601 UTC with milliseconds.
    package mutating func encodeDate(_ date: Date, forKey key: Key) throws {
        guard ISODate.holds(date) else {
            throw EncodingError.invalidValue(
                date,
                .init(
                    codingPath: codingPath + [key],
                    debugDescription: "\(key.stringValue) is outside the years 1 to 9999 a Docket file can hold"))
        }
        try encode(ISODate.string(from: date), forKey: key)
    }

    /// Encodes an optional date, writing `null` when there is none so every field has its line.
    package mutating func encodeDate(_ date: Date?, forKey key: Key) throws {
        if let date { try encodeDate(date, forKey: key) } else { try encodeNil(forKey: key) }
    }
}

extension KeyedDecodingContainer {
    /// Decodes an ISO-8601 date, naming the field when the text is not one.
    package func decodeDate(forKey key: Key) throws -> Date {
        let text = try decode(String.self, forKey: key)
        guard let date = ISODate.date(from: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self,
                debugDescription: "\"\(text)\" is not an ISO-8601 date such as 2026-11-22T09:30:00.000Z")
        }
        return date
    }

    /// Decodes an optional ISO-8601 date: a missing key or `null` is no date.
    package func decodeDateIfPresent(forKey key: Key) throws -> Date? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeDate(forKey: key)
    }
}

/// A date coded as Docket codes every date: ISO-8601 UTC with milliseconds
/// (`encodeDate`), whatever date strategy the encoder or decoder was given.
/// Lets a type with dates keep its synthesized `Codable`.
@propertyWrapper
public struct MillisecondDate: Codable, Hashable, Sendable {
    /// The date.
    public var wrappedValue: Date

    /// Wraps `wrappedValue`.
    public init(wrappedValue: Date) { self.wrappedValue = wrappedValue }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = ISODate.date(from: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(text)\" is not an ISO-8601 date such as 2026-11-22T09:30:00.000Z")
        }
        wrappedValue = date
    }

    public func encode(to encoder: Encoder) throws {
        guard ISODate.holds(wrappedValue) else {
            throw EncodingError.invalidValue(
                wrappedValue,
                .init(
                    codingPath: encoder.codingPath,
                    debugDescription: "the date is outside the years 1 to 9999 a Docket file can hold"))
        }
        var container = encoder.singleValueContainer()
        try container.encode(ISODate.string(from: wrappedValue))
    }
}

/// An optional `MillisecondDate`: `null` when there is none, so every field
/// has its line; a missing key or `null` reads as none.
@propertyWrapper
public struct OptionalMillisecondDate: Codable, Hashable, Sendable {
    /// The date, if there is one.
    public var wrappedValue: Date?

    /// Wraps `wrappedValue`.
    public init(wrappedValue: Date?) { self.wrappedValue = wrappedValue }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try MillisecondDate(from: decoder).wrappedValue
    }

    public func encode(to encoder: Encoder) throws {
        if let wrappedValue {
            try MillisecondDate(wrappedValue: wrappedValue).encode(to: encoder)
        } else {
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        }
    }
}

extension KeyedDecodingContainer {
    /// A missing key is no date, as for an optional.
    public func decode(_ type: OptionalMillisecondDate.Type, forKey key: Key) throws -> OptionalMillisecondDate {
        try decodeIfPresent(type, forKey: key) ?? OptionalMillisecondDate(wrappedValue: nil)
    }
}
