import Foundation

/// How a merge reconciles a field that two machines changed concurrently.
public enum MergeRule: Sendable, Equatable {
    /// The item's identity: never differs between the sides of a merge.
    case identity
    /// The earlier of the two values (a creation date).
    case earliest
    /// The later of the two values (an alteration date).
    case latest
    /// A field changed on one side takes that side's value; changed on both,
    /// the side with the later alterDate wins and the losing value is recorded.
    case laterEdit
    /// Time slips, merged by slip id; a stop set on one side is kept.
    case timeSlips
    /// A set (tags, dependencies: a `SetFieldValue`), merged element by element: what each side
    /// added is added, what each side removed is removed.
    case set
    /// Notes, merged by note id: each side's new notes are kept, an edit or
    /// removal on one side is taken, and on both the later edit wins.
    case notes
    /// Merged with the field of this key: taken from the side that field came
    /// from (a completion date goes with the completion); when that field is
    /// the same on both sides, by the later-edit rule.
    case follows(String)
    /// What the store keeps elsewhere (a project's tasks, in their own files).
    case children
    /// A claim (`Claim?`): the same claim on both sides its later lease or release; of two claims that overlapped
    /// in time the earlier taken, the other recorded as lost; of two that did not, the later (see `ClaimMerge`).
    case claim
}

/// One field of an item, declared once: its JSON key, how people call it,
/// how the merge reconciles it, and how to read and set it. Coding (JSON and
/// the cache), merging, describing a change and the merge laws all derive
/// from an item's list of fields, so a new field is declared in one place.
public final class ItemField<Item>: Sendable {
    /// The JSON key, also the field's name in merge reports.
    public let key: String
    /// What people call it, such as "due date".
    public let label: String
    /// How the merge reconciles it.
    public let rule: MergeRule

    let codingKey: FieldKey
    private let decodeJSON: @Sendable (KeyedDecodingContainer<FieldKey>, Item) throws -> Item?
    private let encodeJSON: @Sendable (Item, inout KeyedEncodingContainer<FieldKey>) throws -> Void
    private let readCompact: @Sendable (inout CompactReader, Item) throws -> Item
    private let writeCompact: @Sendable (Item, inout CompactWriter) -> Void
    private let same: @Sendable (Item, Item) -> Bool
    private let hashValue: @Sendable (Item, inout Hasher) -> Void
    private let describe: @Sendable (Item) -> String
    private let get: @Sendable (Item) -> any FieldValue
    private let assign: @Sendable (Item, any FieldValue) -> Item

    /// A field of type `Value`, read by `get` and set by `set` (which must not
    /// touch any other field). A field with a `default` may be missing from a
    /// file; one without must be there. `omitWhenAbsent` leaves a nil value out of the JSON.
    /// `check` says why a value read from a file cannot be taken (what a
    /// person typing it would be told), so a file holds only what a command could have written.
    public init<Value: FieldValue>(
        _ key: String, label: String? = nil, rule: MergeRule, default fallback: Value? = nil,
        omitWhenAbsent: Bool = false, check: (@Sendable (Value) -> String?)? = nil,
        get: @escaping @Sendable (Item) -> Value, set: @escaping @Sendable (Item, Value) -> Item
    ) {
        precondition(rule != .set || Value.self is any SetFieldValue.Type, "a set field's value is a SetFieldValue")
        let codingKey = FieldKey(key)
        self.key = key
        self.label = label ?? key
        self.rule = rule
        self.codingKey = codingKey
        decodeJSON = { container, item in
            guard let value = try Value.decodeField(from: container, key: codingKey) ?? fallback else { return nil }
            if let problem = check?(value) {
                throw DecodingError.dataCorruptedError(forKey: codingKey, in: container, debugDescription: problem)
            }
            return set(item, value)
        }
        encodeJSON = { item, container in
            let value = get(item)
            if omitWhenAbsent && value.isAbsent { return }
            try value.encodeField(to: &container, key: codingKey)
        }
        readCompact = { reader, item in set(item, try Value.read(from: &reader)) }
        writeCompact = { item, writer in get(item).write(to: &writer) }
        same = { get($0).isSame(as: get($1)) }
        hashValue = { item, hasher in get(item).hashField(into: &hasher) }
        describe = { get($0).fieldText }
        self.get = { get($0) }
        assign = { item, value in set(item, value as! Value) }
    }

    /// Whether two items hold the same value in this field.
    public func isSame(_ a: Item, _ b: Item) -> Bool { same(a, b) }
    /// The field's value in `item`, as text for people and reports.
    public func text(of item: Item) -> String { describe(item) }
    /// The field's value in `item`.
    public func value(of item: Item) -> any FieldValue { get(item) }
    /// `item` with this field set to the value `source` holds in it.
    public func copy(from source: Item, into item: Item) -> Item { assign(item, get(source)) }
    /// `item` with this field set to `value`, which must be of the field's type.
    public func setting(_ value: any FieldValue, in item: Item) -> Item { assign(item, value) }

    func decode(_ container: KeyedDecodingContainer<FieldKey>, into item: Item) throws -> Item? {
        try decodeJSON(container, item)
    }
    func encode(_ item: Item, into container: inout KeyedEncodingContainer<FieldKey>) throws {
        try encodeJSON(item, &container)
    }
    func read(_ reader: inout CompactReader, into item: Item) throws -> Item { try readCompact(&reader, item) }
    func write(_ item: Item, into writer: inout CompactWriter) { writeCompact(item, &writer) }
    func hash(_ item: Item, into hasher: inout Hasher) { hashValue(item, &hasher) }
}

/// An item whose fields are declared once, in `fields`: its JSON, its compact
/// form, its equality and its hash all come from that list.
public protocol FieldCoded: FieldValue, Codable, Hashable {
    /// Every field, in the order the compact form stores them.
    static var fields: [ItemField<Self>] { get }
    /// A value whose fields are all about to be set, to decode into.
    static var blank: Self { get }
}

extension FieldCoded {
    public init(from decoder: Decoder) throws {
        try self.init(from: decoder, fields: Self.fields)
    }

    public func encode(to encoder: Encoder) throws {
        try encode(to: encoder, fields: Self.fields)
    }

    /// Decodes only `fields`; the others keep `blank`'s values.
    public init(from decoder: Decoder, fields: [ItemField<Self>]) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        var item = Self.blank
        for field in fields {
            guard let next = try field.decode(container, into: item) else {
                throw DecodingError.keyNotFound(
                    field.codingKey,
                    .init(
                        codingPath: container.codingPath,
                        debugDescription: "no value for \"\(field.key)\""))
            }
            item = next
        }
        self = item
    }

    /// Encodes only `fields`.
    public func encode(to encoder: Encoder, fields: [ItemField<Self>]) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        for field in fields { try field.encode(self, into: &container) }
    }

    public static func read(from reader: inout CompactReader) throws -> Self { try readingEachField(from: &reader) }

    /// Reads the compact form field by field through `fields`, each setting its value on a copy of the item so far:
    /// what `read(from:)` does unless a type reads its fields in one go (as `TodoItem` does: a spec holds the two
    /// the same).
    public static func readingEachField(from reader: inout CompactReader) throws -> Self {
        var item = blank
        for field in fields { item = try field.read(&reader, into: item) }
        return item
    }

    public func write(to writer: inout CompactWriter) {
        for field in Self.fields { field.write(self, into: &writer) }
    }

    public var fieldText: String {
        (try? DocketJSON.encode(self)).map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .newlines) }
            ?? ""
    }

    /// Whether every field of `a` and `b` is the same (dates to the millisecond).
    public static func sameFields(_ a: Self, _ b: Self) -> Bool {
        fields.allSatisfy { $0.isSame(a, b) }
    }

    /// Hashes every field, as `sameFields` compares them.
    public func hashFields(into hasher: inout Hasher) {
        for field in Self.fields { field.hash(self, into: &hasher) }
    }

    /// This item with a new alterDate: later than now's and than `previous`
    /// (the date it must outweigh, such as its removal's), for an edit that
    /// puts back an older value (an undo, a restored merge loser).
    public func redated(after previous: Date?) -> Self {
        guard let field = Self.fields.first(where: { $0.key == "alterDate" }) else { return self }
        return field.setting(Optional(DocketClock.alterDate(after: previous)), in: self)
    }

    /// The fields a merge reconciles one by one (not the identity, dates or children).
    public static var contentFields: [ItemField<Self>] {
        fields.filter {
            switch $0.rule {
            case .laterEdit, .timeSlips, .set, .notes, .follows, .claim: true
            case .identity, .earliest, .latest, .children: false
            }
        }
    }
}
