import Foundation

/// A JSON value as another tool wrote it, kept whole.
public enum JSONValue: Hashable, Sendable, Codable, CustomStringConvertible {
    /// A string.
    case string(String)
    /// A whole number.
    case integer(Int64)
    /// A number with a fraction (or too large for `integer`).
    case number(Double)
    /// true or false.
    case bool(Bool)
    /// A list.
    case array([JSONValue])
    /// An object, by key.
    case object([String: JSONValue])
    /// null.
    case null

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
            return
        }
        if let value = try? c.decode(Bool.self) {
            self = .bool(value)
            return
        }
        if let value = try? c.decode(Int64.self) {
            self = .integer(value)
            return
        }
        if let value = try? c.decode(Double.self) {
            self = .number(value)
            return
        }
        if let value = try? c.decode(String.self) {
            self = .string(value)
            return
        }
        if let value = try? c.decode([JSONValue].self) {
            self = .array(value)
            return
        }
        self = .object(try c.decode([String: JSONValue].self))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case let .string(value): try c.encode(value)
        case let .integer(value): try c.encode(value)
        case let .number(value): try c.encode(value)
        case let .bool(value): try c.encode(value)
        case let .array(value): try c.encode(value)
        case let .object(value): try c.encode(value)
        case .null: try c.encodeNil()
        }
    }

    /// The value as `JSONSerialization` gives it, for writing among other such values.
    public var foundationValue: Any {
        switch self {
        case let .string(value): value
        case let .integer(value): value
        case let .number(value): value
        case let .bool(value): value
        case let .array(value): value.map(\.foundationValue)
        case let .object(value): value.mapValues(\.foundationValue)
        case .null: NSNull()
        }
    }

    /// Compact JSON, keys sorted.
    public var description: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}

/// Keys another tool's item had that Docket has no field for, kept in the
/// item's file as they were, by tool ("taskwarrior": its `wait`, `scheduled`,
/// `depends`, UDAs…), so an export to that tool hands them back. A merge
/// takes the whole set from the later edit.
public struct KeptKeys: Hashable, Sendable, Codable, FieldValue, CustomStringConvertible {
    /// Each tool's keys and their values.
    public let tools: [String: [String: JSONValue]]

    /// These tools' keys; a tool with none is left out.
    public init(_ tools: [String: [String: JSONValue]] = [:]) {
        // NB: nearly every item keeps nothing, and filtering an empty dictionary still costs a call and a copy.
        self.tools = tools.isEmpty ? tools : tools.filter { !$0.value.isEmpty }
    }

    /// The keys kept for `tool`.
    public subscript(tool: String) -> [String: JSONValue] { tools[tool] ?? [:] }

    /// Whether no key is kept.
    public var isEmpty: Bool { tools.isEmpty }

    /// These keys with `tool`'s replaced.
    public func setting(_ tool: String, to keys: [String: JSONValue]) -> KeptKeys {
        var tools = self.tools
        tools[tool] = keys
        return KeptKeys(tools)
    }

    public init(from decoder: Decoder) throws {
        self.init(try decoder.singleValueContainer().decode([String: [String: JSONValue]].self))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(tools)
    }

    // NB: nearly every item keeps nothing: an empty set is an empty string in a cache, read without a JSON decoder
    // (one per todo made the day's view at 100,000 todos 25% slower).
    public static func read(from reader: inout CompactReader) throws -> KeptKeys {
        let count = Int(try reader.integer(UInt32.self))
        guard count > 0 else { return KeptKeys() }
        let bytes = try reader.raw(count)
        guard let kept = try? JSONDecoder().decode(KeptKeys.self, from: Data(bytes)) else {
            throw CompactReader.Damaged()
        }
        return kept
    }

    public func write(to writer: inout CompactWriter) { writer.string(isEmpty ? "" : description) }

    public var fieldText: String { isEmpty ? "none" : description }
    public var isAbsent: Bool { isEmpty }

    /// Compact JSON, keys sorted.
    public var description: String { JSONValue.object(tools.mapValues { .object($0) }).description }
}
