import Foundation

/// A standalone todo: a text that can be completed, given a due date, and forked.
public struct TodoItem: Identifiable, Codable, Hashable, Sendable {
    /// What is to be done.
    public let text: String
    /// The identity of the item; a fork gets a new one.
    public let id: UUID
    /// When the item was made; a fork keeps its original's.
    public let creationDate: Date
    /// Whether the item is done.
    public let completed: Bool
    /// When the item is due, if ever.
    public let dueDate: Date?
    /// When the item was last altered; nil until the first alteration.
    public let alterDate: Date?

    /// The Change DSL of a todo.
    public enum Change: Hashable, Sendable {
        /// Sets the text.
        case text(String)
        /// Marks the item done or open.
        case completed(Bool)
        /// Sets or clears the due date.
        case due(Date?)
        /// Makes a new item with a new id and the same alterDate, then applies the changes to it.
        case fork([Change])
    }

    /// A new open item with the given text, made now.
    public init(text: String) {
        self.init(id: DocketIDs.make(), text: text, creationDate: DocketClock.now, completed: false, dueDate: nil, alterDate: nil)
    }

    /// An item exactly as stored, for decoding and merging.
    public init(id: UUID, text: String, creationDate: Date, completed: Bool, dueDate: Date?, alterDate: Date?) {
        self.id = id
        self.text = text
        self.creationDate = creationDate
        self.completed = completed
        self.dueDate = dueDate
        self.alterDate = alterDate
    }

    /// The item after the changes, applied in order.
    public func alter(_ changes: Change...) -> TodoItem { alter(changes) }

    /// The item after the changes, applied in order.
    public func alter(_ changes: [Change]) -> TodoItem { changes.reduce(self) { $0.applying($1) } }

    // NB: a change to the value a field already has is no alteration: the item
    // comes back unchanged, so re-applying an edit never moves its alterDate.
    private func applying(_ change: Change) -> TodoItem {
        switch change {
        case let .text(text):
            guard text != self.text else { return self }
            return TodoItem(id: id, text: text, creationDate: creationDate, completed: completed, dueDate: dueDate, alterDate: nextAlterDate)
        case let .completed(completed):
            guard completed != self.completed else { return self }
            return TodoItem(id: id, text: text, creationDate: creationDate, completed: completed, dueDate: dueDate, alterDate: nextAlterDate)
        case let .due(dueDate):
            guard !sameMillisecond(dueDate, self.dueDate) else { return self }
            return TodoItem(id: id, text: text, creationDate: creationDate, completed: completed, dueDate: dueDate, alterDate: nextAlterDate)
        case let .fork(changes):
            return TodoItem(id: DocketIDs.make(), text: text, creationDate: creationDate, completed: completed, dueDate: dueDate, alterDate: alterDate)
                .alter(changes)
        }
    }

    private var nextAlterDate: Date { DocketClock.alterDate(after: alterDate) }

    // MARK: Equality at the stored precision

    public static func == (a: TodoItem, b: TodoItem) -> Bool {
        a.id == b.id && a.text == b.text && a.completed == b.completed
            && sameMillisecond(a.creationDate, b.creationDate)
            && sameMillisecond(a.dueDate, b.dueDate)
            && sameMillisecond(a.alterDate, b.alterDate)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(text)
        hasher.combine(completed)
        hasher.combine(creationDate.docketMilliseconds)
        hasher.combine(dueDate?.docketMilliseconds)
        hasher.combine(alterDate?.docketMilliseconds)
    }

    // MARK: JSON

    private enum CodingKeys: String, CodingKey {
        case text, id, creationDate, completed, dueDate, alterDate
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(UUID.self, forKey: .id),
            text: try c.decode(String.self, forKey: .text),
            creationDate: try c.decodeDate(forKey: .creationDate),
            completed: try c.decodeIfPresent(Bool.self, forKey: .completed) ?? false,
            dueDate: try c.decodeDateIfPresent(forKey: .dueDate),
            alterDate: try c.decodeDateIfPresent(forKey: .alterDate))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(text, forKey: .text)
        try c.encode(id, forKey: .id)
        try c.encodeDate(creationDate, forKey: .creationDate)
        try c.encode(completed, forKey: .completed)
        try c.encodeDate(dueDate, forKey: .dueDate)
        try c.encodeDate(alterDate, forKey: .alterDate)
    }
}
