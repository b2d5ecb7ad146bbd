import Foundation

/// What a todo and a project's task share: the fields that plan the work (due, wait and scheduled dates,
/// dependencies, priority, tags, notes, how it repeats, its claim), read and changed one way. Code that treats
/// todos and tasks alike (the commands that plan, the editor form, claims, the agents' door) changes either through
/// `SharedChange`, so the two kinds cannot drift apart: a new shared field is a new case, and the compiler names
/// both kinds' spelling of it.
public protocol PlannedItem: Identifiable, Hashable, Sendable where ID == UUID {
    /// What is to be done: a todo's text, a task's title.
    var plannedText: String { get }
    /// When it is due: not at all, on a day, or at a time.
    var plannedDue: DueDate { get }
    /// Until when it is hidden from the day's view and the lists of open items, if it waits.
    var waitDate: DueDate { get }
    /// When it is planned to be started, if said.
    var scheduledDate: DueDate { get }
    /// The ids of the todos and tasks it depends on, sorted, each once.
    var dependencies: [UUID] { get }
    /// How much it matters, if said.
    var priority: Priority? { get }
    /// Its tags, sorted, each once.
    var tags: [String] { get }
    /// Dated annotations, oldest first.
    var notes: [Note] { get }
    /// How it repeats, if it does.
    var recurrence: Recurrence? { get }
    /// Who works on it, until when: the last claim taken on it.
    var claim: Claim? { get }
    /// When it was last altered; nil until the first alteration.
    var alterDate: Date? { get }
    /// The item after `changes`, applied in order, through its own Change DSL.
    func altered(by changes: [SharedChange]) -> Self
}

/// A change a todo and a task take alike, said once for both kinds (`PlannedItem.altered(by:)`).
public enum SharedChange: Hashable, Sendable {
    /// Sets a todo's text or a task's title.
    case text(String)
    /// Sets the due date: a day, a moment, or none.
    case due(DueDate)
    /// Sets the date until which it waits: a day (until it begins), a moment, or none.
    case wait(DueDate)
    /// Sets the date it is planned to be started: a day, a moment, or none.
    case scheduled(DueDate)
    /// Adds and removes tags.
    case tagging(add: [String], remove: [String])
    /// Sets or clears the priority.
    case priority(Priority?)
    /// Sets, changes or stops how it repeats.
    case recurrence(Recurrence?)
    /// Adds and removes the ids of items it depends on.
    case depending(add: [UUID], remove: [UUID])
    /// Adds, edits or removes a note.
    case noting(Note.Change)
    /// Sets the claim: taken, renewed, released, or none.
    case claim(Claim?)

    /// The change in a todo's Change DSL.
    public var todo: TodoItem.Change {
        switch self {
        case let .text(text): .text(text)
        case let .due(due): .dueDate(to: due)
        case let .wait(date): .wait(date)
        case let .scheduled(date): .scheduled(date)
        case let .tagging(add, remove): .tagging(add: add, remove: remove)
        case let .priority(priority): .priority(priority)
        case let .recurrence(recurrence): .recurrence(recurrence)
        case let .depending(add, remove): .depending(add: add, remove: remove)
        case let .noting(change): .noting(change)
        case let .claim(claim): .claim(claim)
        }
    }

    /// The change in a task's Change DSL (its title for the text).
    public var task: ProjectTask.Change {
        switch self {
        case let .text(text): .setting(.title(to: text))
        case let .due(due): .setting(.dueDate(to: due))
        case let .wait(date): .setting(.waitDate(to: date))
        case let .scheduled(date): .setting(.scheduledDate(to: date))
        case let .tagging(add, remove): .tagging(add: add, remove: remove)
        case let .priority(priority): .setting(.priority(to: priority))
        case let .recurrence(recurrence): .setting(.recurrence(to: recurrence))
        case let .depending(add, remove): .depending(add: add, remove: remove)
        case let .noting(change): .noting(change)
        case let .claim(claim): .setting(.claim(to: claim))
        }
    }
}

extension TodoItem: PlannedItem {
    public var plannedText: String { text }
    public var plannedDue: DueDate { due }
    public func altered(by changes: [SharedChange]) -> TodoItem { alter(changes.map(\.todo)) }
}

extension ProjectTask: PlannedItem {
    public var plannedText: String { title }
    public var plannedDue: DueDate { dueDate }
    public func altered(by changes: [SharedChange]) -> ProjectTask { alter(by: changes.map(\.task)) }
}
