import DocketModel
import Foundation

/// Any JSON value, so keys this version does not know survive a rewrite.
enum JSONValue: Codable, Equatable, Sendable {
    case null, bool(Bool), int(Int64), double(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let value = try? c.decode(Bool.self) { self = .bool(value) }
        else if let value = try? c.decode(Int64.self) { self = .int(value) }
        else if let value = try? c.decode(Double.self) { self = .double(value) }
        else if let value = try? c.decode(String.self) { self = .string(value) }
        else if let value = try? c.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case let .bool(value): try c.encode(value)
        case let .int(value): try c.encode(value)
        case let .double(value): try c.encode(value)
        case let .string(value): try c.encode(value)
        case let .array(value): try c.encode(value)
        case let .object(value): try c.encode(value)
        }
    }
}

/// A value written with extra top-level keys beside its own.
private struct FileRecord<Value: Encodable>: Encodable {
    let value: Value
    let extra: [String: JSONValue]

    func encode(to encoder: Encoder) throws {
        try value.encode(to: encoder)
        var c = encoder.container(keyedBy: FieldKey.self)
        for (key, value) in extra { try c.encode(value, forKey: FieldKey(key)) }
    }
}

/// The file text of `value` with `extra` keys, keeping every key of the
/// `existing` file that neither writes. `owning` names the keys the value's
/// type writes only when they hold something (an empty list of tags): those
/// are Docket's to drop, never kept from the old file.
func fileText(_ value: some Encodable, extra: [String: JSONValue] = [:], owning: [String] = [],
              keepingUnknownKeysOf existing: Data?) throws -> Data {
    let fresh = try DocketJSON.encode(FileRecord(value: value, extra: extra))
    guard let existing, let old = try? JSONDecoder().decode([String: JSONValue].self, from: existing),
          let written = try? JSONDecoder().decode([String: JSONValue].self, from: fresh)
    else { return fresh }
    let owned = Set(owning)
    let unknown = old.filter { written[$0.key] == nil && !owned.contains($0.key) }
    guard !unknown.isEmpty else { return fresh }
    return try DocketJSON.encode(FileRecord(value: value, extra: extra.merging(unknown) { mine, _ in mine }))
}
