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

extension DocketJSON {
    /// A key that one object of a JSON text holds twice (the first found, its escapes read), or nil.
    ///
    /// NB: readers disagree on such a file: Foundation's decoder takes the first value, Python and jq the last, so a
    /// file could say one thing to docket and another to a script or a reviewer. Docket's files never hold one, and
    /// docket takes a file that does as not decoding, naming the key. One pass over the bytes, without decoding.
    public static func repeatedKey(in text: Data) -> String? {
        text.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> String? in
            let quote = UInt8(ascii: "\"")
            let backslash = UInt8(ascii: "\\")
            /// An open object or array: an object's keys so far (as byte ranges, between their quotes; as text once
            /// one was written with an escape), and whether a key comes next.
            struct Frame {
                var keys: [Range<Int>]?
                var texts: Set<String>?
                var expectsKey: Bool
            }
            func text(_ range: Range<Int>) -> String {
                String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            }
            var frames: [Frame] = []
            var i = 0
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: "{"): frames.append(Frame(keys: [], expectsKey: true))
                case UInt8(ascii: "["): frames.append(Frame(keys: nil, expectsKey: false))
                case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = frames.popLast()
                case UInt8(ascii: ","):
                    if !frames.isEmpty, frames[frames.count - 1].keys != nil {
                        frames[frames.count - 1].expectsKey = true
                    }
                case UInt8(ascii: ":"):
                    if !frames.isEmpty { frames[frames.count - 1].expectsKey = false }
                case quote:
                    let start = i + 1
                    var escaped = false
                    i += 1
                    while i < bytes.count, bytes[i] != quote {
                        if bytes[i] == backslash {
                            escaped = true
                            i += 1
                        }
                        i += 1
                    }
                    guard i < bytes.count else { return nil }
                    guard let last = frames.indices.last, let count = frames[last].keys?.count, frames[last].expectsKey
                    else { break }
                    frames[last].expectsKey = false
                    let range = start..<i
                    // NB: byte ranges compared one by one while an object has few keys (a Docket file's have); one
                    // with many (a planted file) or an escape is compared as text, by hash.
                    if (escaped || count >= 32) && frames[last].texts == nil {
                        frames[last].texts = Set(frames[last].keys!.map(text))
                    }
                    if frames[last].texts != nil {
                        let raw = Data(UnsafeRawBufferPointer(rebasing: bytes[(start - 1)...i]))
                        let key =
                            escaped ? (try? JSONDecoder().decode(String.self, from: raw)) ?? text(range) : text(range)
                        if !frames[last].texts!.insert(key).inserted { return key }
                    } else {
                        for other in frames[last].keys! where other.count == range.count {
                            if memcmp(bytes.baseAddress! + other.lowerBound, bytes.baseAddress! + start, range.count)
                                == 0
                            {
                                return text(range)
                            }
                        }
                        frames[last].keys!.append(range)
                    }
                default: break
                }
                i += 1
            }
            return nil
        }
    }
}
