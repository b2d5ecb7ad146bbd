import Foundation

/// Where in an item a value is, as merge reports, the undo journal, `Reversal` and a merge's restore name it:
/// a field, one note of its notes, the stop of one of its time slips, or the whole item.
///
/// It is written as the text merge records and undo journals have always held ("text", "notes[<note id>]",
/// "timeSlips[<slip id>].stop"; the whole item as ""), so records written by an older docket read as before.
/// That text is spelled and parsed here only.
public enum FieldPath: Hashable, Sendable, Comparable, CustomStringConvertible, Codable, ExpressibleByStringLiteral {
    /// The whole item: an edit that a removal won over.
    case item
    /// A field, by its key (`ItemField.key`): "text", "tags".
    case field(String)
    /// One note, by its id, of the item's notes (the field whose rule is `MergeRule.notes`).
    case note(UUID)
    /// The stop of one time slip, by its id, of the item's slips (the field whose rule is `MergeRule.timeSlips`).
    case slipStop(UUID)

    /// A plain field key written in code: `"text"` is `.field("text")`.
    public init(stringLiteral key: String) { self = .field(key) }

    /// The path written as `text` (see `description`); text that names no note and no slip is a field's key.
    public init(_ text: String) {
        guard !text.isEmpty else {
            self = .item
            return
        }
        // "notes[<id>]" or "timeSlips[<id>].stop": a name, an id in brackets, then what follows the bracket.
        let opened = text.split(separator: "[", maxSplits: 1, omittingEmptySubsequences: false)
        let closed =
            opened.count == 2 ? opened[1].split(separator: "]", maxSplits: 1, omittingEmptySubsequences: false) : []
        guard closed.count == 2, let id = UUID(uuidString: String(closed[0])) else {
            self = .field(text)
            return
        }
        switch (opened[0], closed[1]) {
        case ("notes", ""): self = .note(id)
        case ("timeSlips", ".stop"): self = .slipStop(id)
        default: self = .field(text)
        }
    }

    /// As merge records and journals write it: "text", "notes[<id>]", "timeSlips[<id>].stop"; "" for the item.
    public var description: String {
        switch self {
        case .item: ""
        case let .field(key): key
        case let .note(id): "notes[\(id.uuidString)]"
        case let .slipStop(id): "timeSlips[\(id.uuidString)].stop"
        }
    }

    /// Ordered as their text, as merge reports have always listed fields.
    public static func < (a: FieldPath, b: FieldPath) -> Bool { a.description < b.description }

    public init(from decoder: Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A `FieldPath` in one item, as the undo journal keeps what a merge's other side lost: written
/// "<item id> <path>", or "<item id>" alone for the whole item, as journals have always held it.
public struct ItemFieldPath: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The item (a todo, a project or a task).
    public let itemID: UUID
    /// Where in it.
    public let path: FieldPath

    /// The path `path` in the item `itemID`.
    public init(_ itemID: UUID, _ path: FieldPath) {
        self.itemID = itemID
        self.path = path
    }

    /// The path written as `text` ("<item id> <path>" or "<item id>"); nil when it names no item.
    public init?(_ text: String) {
        let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard let id = UUID(uuidString: String(parts[0])) else { return nil }
        self.init(id, parts.count == 2 ? FieldPath(String(parts[1])) : .item)
    }

    /// As the journal writes it: "<item id> <path>", or "<item id>" for the whole item.
    public var description: String {
        path == .item ? itemID.uuidString : "\(itemID.uuidString) \(path)"
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let path = ItemFieldPath(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(text)\" names no item: an item's id comes first")
        }
        self = path
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
