import Foundation

/// A standalone todo: a text that can be completed, given a due date, and forked.
public struct TodoItem: Identifiable, Sendable, FieldCoded {
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
            text == self.text ? self : with(text: text, alterDate: nextAlterDate)
        case let .completed(completed):
            completed == self.completed ? self : with(completed: completed, alterDate: nextAlterDate)
        case let .due(dueDate):
            dueDate.isSame(as: self.dueDate) ? self : with(dueDate: dueDate, alterDate: nextAlterDate)
        case let .fork(changes):
            with(id: DocketIDs.make()).alter(changes)
        }
    }

    private var nextAlterDate: Date { DocketClock.alterDate(after: alterDate) }

    /// This item with some fields replaced; a nil argument keeps the field.
    private func with(id: UUID? = nil, text: String? = nil, creationDate: Date? = nil, completed: Bool? = nil,
                      dueDate: Date?? = nil, alterDate: Date?? = nil) -> TodoItem {
        TodoItem(id: id ?? self.id, text: text ?? self.text, creationDate: creationDate ?? self.creationDate,
                 completed: completed ?? self.completed, dueDate: dueDate ?? self.dueDate, alterDate: alterDate ?? self.alterDate)
    }

    // MARK: Fields

    /// Every field of a todo: its file, the cache, the merge and change descriptions come from this list.
    public static let fields: [ItemField<TodoItem>] = [
        ItemField("id", rule: .identity, get: { $0.id }, set: { $0.with(id: $1) }),
        ItemField("text", rule: .laterEdit, get: { $0.text }, set: { $0.with(text: $1) }),
        ItemField("creationDate", label: "creation date", rule: .earliest, get: { $0.creationDate }, set: { $0.with(creationDate: $1) }),
        ItemField("completed", rule: .laterEdit, default: false, get: { $0.completed }, set: { $0.with(completed: $1) }),
        ItemField("dueDate", label: "due date", rule: .laterEdit, get: { $0.dueDate }, set: { $0.with(dueDate: $1) }),
        ItemField("alterDate", label: "alter date", rule: .latest, get: { $0.alterDate }, set: { $0.with(alterDate: $1) }),
    ]

    public static let blank = TodoItem(id: .zero, text: "", creationDate: .distantPast, completed: false,
                                       dueDate: nil, alterDate: nil)

    // Equality at the stored precision: dates to the millisecond.
    public static func == (a: TodoItem, b: TodoItem) -> Bool { sameFields(a, b) }
    public func hash(into hasher: inout Hasher) { hashFields(into: &hasher) }
}
