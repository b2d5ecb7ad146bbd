import Foundation

/// The key of one field in an item's JSON.
public struct FieldKey: CodingKey, Hashable, Sendable {
    public let stringValue: String
    public var intValue: Int? { nil }
    /// The key named `name`.
    public init(_ name: String) { stringValue = name }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}

/// What one field of an item can hold: how it is written as JSON and
/// compactly (for caches), how two values compare and hash at the stored
/// precision, and how it shows in a merge report.
public protocol FieldValue: Sendable {
    /// The value under `key`, or nil when the key is missing.
    static func decodeField(from container: KeyedDecodingContainer<FieldKey>, key: FieldKey) throws -> Self?
    /// Writes the value under `key`.
    func encodeField(to container: inout KeyedEncodingContainer<FieldKey>, key: FieldKey) throws
    /// The next value a `CompactWriter` wrote.
    static func read(from reader: inout CompactReader) throws -> Self
    /// Writes the value compactly.
    func write(to writer: inout CompactWriter)
    /// Whether two values are the same at the stored precision (dates to the millisecond).
    func isSame(as other: Self) -> Bool
    /// Hashes what `isSame` compares.
    func hashField(into hasher: inout Hasher)
    /// The value as text, for merge reports: "none" when there is none.
    var fieldText: String { get }
    /// Whether the value stands for "nothing" (nil, or an empty list), which some fields leave out of their JSON.
    var isAbsent: Bool { get }
    /// Where the value sorts, for the `earliest` and `latest` merge rules; nil when it has no order.
    var orderKey: Int64? { get }
}

extension FieldValue {
    public var isAbsent: Bool { false }
    public var orderKey: Int64? { nil }
}

extension FieldValue where Self: Hashable {
    public func isSame(as other: Self) -> Bool { self == other }
    public func hashField(into hasher: inout Hasher) { hasher.combine(self) }
}

extension FieldValue where Self: Codable {
    public static func decodeField(from container: KeyedDecodingContainer<FieldKey>, key: FieldKey) throws -> Self? {
        try container.decodeIfPresent(Self.self, forKey: key)
    }

    public func encodeField(to container: inout KeyedEncodingContainer<FieldKey>, key: FieldKey) throws {
        try container.encode(self, forKey: key)
    }
}

extension String: FieldValue {
    public static func read(from reader: inout CompactReader) throws -> String { try reader.string() }
    public func write(to writer: inout CompactWriter) { writer.string(self) }
    public var fieldText: String { self }
}

extension Bool: FieldValue {
    public static func read(from reader: inout CompactReader) throws -> Bool { try reader.integer(UInt8.self) != 0 }
    public func write(to writer: inout CompactWriter) { writer.integer(UInt8(self ? 1 : 0)) }
    public var fieldText: String { String(self) }
}

extension Int: FieldValue {
    public static func read(from reader: inout CompactReader) throws -> Int { Int(try reader.integer(Int64.self)) }
    public func write(to writer: inout CompactWriter) { writer.integer(Int64(self)) }
    public var fieldText: String { String(self) }
}

extension UUID: FieldValue {
    public static func decodeField(from container: KeyedDecodingContainer<FieldKey>, key: FieldKey) throws -> UUID? {
        guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let id = UUID(hex: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "\"\(text)\" is not an id such as 6F9619FF-8B86-4D11-B42D-00C04FC964FF")
        }
        return id
    }
    public static func read(from reader: inout CompactReader) throws -> UUID {
        let bytes = try reader.raw(16)
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: bytes) }
        return UUID(uuid: value)
    }
    public func write(to writer: inout CompactWriter) { withUnsafeBytes(of: uuid) { writer.raw($0) } }
    public var fieldText: String { uuidString.lowercased() }
}

extension Date: FieldValue {
    public static func decodeField(from container: KeyedDecodingContainer<FieldKey>, key: FieldKey) throws -> Date? {
        guard container.contains(key) else { return nil }
        return try container.decodeDate(forKey: key)
    }
    public func encodeField(to container: inout KeyedEncodingContainer<FieldKey>, key: FieldKey) throws {
        try container.encodeDate(self, forKey: key)
    }
    public static func read(from reader: inout CompactReader) throws -> Date {
        Date(docketMilliseconds: try reader.integer(Int64.self))
    }
    public func write(to writer: inout CompactWriter) { writer.integer(docketMilliseconds) }
    public func isSame(as other: Date) -> Bool { docketMilliseconds == other.docketMilliseconds }
    public func hashField(into hasher: inout Hasher) { hasher.combine(docketMilliseconds) }
    public var fieldText: String { ISODate.string(from: self) }
    public var orderKey: Int64? { docketMilliseconds }
}

extension Optional: FieldValue where Wrapped: FieldValue {
    /// A missing key and `null` are both `.some(nil)`: an optional field is never missing.
    public static func decodeField(from container: KeyedDecodingContainer<FieldKey>, key: FieldKey) throws -> Wrapped??
    {
        guard container.contains(key), try !container.decodeNil(forKey: key) else { return .some(nil) }
        guard let value = try Wrapped.decodeField(from: container, key: key) else { return .some(nil) }
        return .some(value)
    }
    public func encodeField(to container: inout KeyedEncodingContainer<FieldKey>, key: FieldKey) throws {
        if let self { try self.encodeField(to: &container, key: key) } else { try container.encodeNil(forKey: key) }
    }
    public static func read(from reader: inout CompactReader) throws -> Wrapped? {
        try reader.integer(UInt8.self) == 0 ? nil : try Wrapped.read(from: &reader)
    }
    public func write(to writer: inout CompactWriter) {
        writer.integer(UInt8(self == nil ? 0 : 1))
        self?.write(to: &writer)
    }
    public func isSame(as other: Wrapped?) -> Bool {
        switch (self, other) {
        case (nil, nil): true
        case let (a?, b?): a.isSame(as: b)
        default: false
        }
    }
    public func hashField(into hasher: inout Hasher) {
        hasher.combine(self == nil)
        self?.hashField(into: &hasher)
    }
    public var fieldText: String { self?.fieldText ?? "none" }
    public var isAbsent: Bool { self == nil }
    public var orderKey: Int64? { self.map { $0.orderKey ?? .min } ?? .min }
}

extension Array: FieldValue where Element: FieldValue & Codable {
    public static func read(from reader: inout CompactReader) throws -> [Element] {
        let count = Int(try reader.integer(UInt32.self))
        var values: [Element] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try Element.read(from: &reader)) }
        return values
    }
    public func write(to writer: inout CompactWriter) {
        writer.integer(UInt32(count))
        for value in self { value.write(to: &writer) }
    }
    public func isSame(as other: [Element]) -> Bool {
        count == other.count && zip(self, other).allSatisfy { $0.isSame(as: $1) }
    }
    public func hashField(into hasher: inout Hasher) {
        hasher.combine(count)
        for value in self { value.hashField(into: &hasher) }
    }
    public var fieldText: String { "[" + map(\.fieldText).joined(separator: ", ") + "]" }
    public var isAbsent: Bool { isEmpty }
}

/// A field value that is one of a few names (an enum with string raw values).
public protocol NamedFieldValue: FieldValue, RawRepresentable, Codable, Hashable where RawValue == String {}

extension NamedFieldValue {
    public static func read(from reader: inout CompactReader) throws -> Self {
        guard let value = Self(rawValue: try reader.string()) else { throw CompactReader.Damaged() }
        return value
    }
    public func write(to writer: inout CompactWriter) { writer.string(rawValue) }
    public var fieldText: String { rawValue }
}

/// A field value that is a set (tags, the ids an item depends on), stored sorted, each element once. The merge
/// reconciles it element by element (`MergeRule.set`), through each element's text.
public protocol SetFieldValue: FieldValue {
    /// Its elements, each as text (what the set merge compares and a merge report shows).
    var elementTexts: Set<String> { get }
    /// The value holding the elements these texts name, sorted.
    static func fromElementTexts(_ texts: Set<String>) -> Self
}

/// An element of a set field: text that names it, and back.
public protocol SetFieldElement: FieldValue, Codable {
    /// The element as text; sorting these texts sorts the set.
    var elementText: String { get }
    /// The element this text names; nil for text that names none.
    init?(elementText: String)
}

extension String: SetFieldElement {
    public var elementText: String { self }
    public init?(elementText: String) { self = elementText }
}

extension UUID: SetFieldElement {
    /// The id as the files write it: upper case.
    public var elementText: String { uuidString }
    public init?(elementText: String) { self.init(hex: elementText) }
}

extension Array: SetFieldValue where Element: SetFieldElement {
    public var elementTexts: Set<String> { Set(map(\.elementText)) }
    public static func fromElementTexts(_ texts: Set<String>) -> [Element] {
        texts.sorted().compactMap(Element.init(elementText:))
    }
}
