import Foundation

/// The JSON of Docket's files: pretty-printed, sorted keys, one field per line,
/// slashes unescaped, and a trailing newline, so files read and diff well.
public enum DocketJSON {
    /// The file text of a value.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(0x0A)
        return data
    }

    /// The value of a file text.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try JSONDecoder().decode(type, from: data)
    }
}

extension DocketJSON {
    /// Whether a Docket file can hold `date`: its year is 1 to 9999.
    public static func canHold(_ date: Date) -> Bool { ISODate.holds(date) }

    /// A date as Docket's files write it: `2026-11-22T04:12:09.123Z`.
    public static func string(from date: Date) -> String { ISODate.string(from: date) }
}
