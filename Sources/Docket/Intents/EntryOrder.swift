import DocketModel
import Foundation

/// The order a listing shows entries in: keys compared in turn, each in the
/// order a person reads it first (earliest due, highest priority, oldest,
/// A to Z) or reversed; entries that lack a key's value (no due date, no
/// priority) come after those that have one, either way. Ties are broken by
/// list order (`EntryOrder.list`), so the order never depends on the order
/// the entries came in.
public struct EntryOrder: Sendable, Equatable, CustomStringConvertible {
    /// What entries can be sorted by.
    public enum Key: String, CaseIterable, Sendable {
        /// The due date: earliest first.
        case due
        /// The priority: high, medium, low.
        case priority
        /// When it was made: oldest first.
        case created
        /// When it was last changed (when it was made, if never since): least recently first.
        case modified
        /// The text or title, A to Z, in any case and with or without accents.
        case text
    }

    /// One key, in its order or reversed.
    public struct Term: Sendable, Equatable, CustomStringConvertible {
        /// What is compared.
        public var key: Key
        /// Whether the key's order is reversed (latest due first, low priority first, newest first, Z to A).
        public var descending: Bool

        /// `key`, in its order unless `descending`.
        public init(_ key: Key, descending: Bool = false) {
            self.key = key
            self.descending = descending
        }

        /// A term as typed: `due`, `+due` (the key's order) or `-due` (reversed); nil for any other word.
        public init?(text: String) {
            let descending = text.hasPrefix("-")
            let name = text.hasPrefix("-") || text.hasPrefix("+") ? String(text.dropFirst()) : text
            // A unique start of a key will do, as Taskwarrior's `pri` for priority.
            let typed = name.lowercased()
            let keys = Key.allCases.filter { $0.rawValue.hasPrefix(typed) }
            guard !typed.isEmpty, let key = Key(rawValue: typed) ?? (keys.count == 1 ? keys[0] : nil) else {
                return nil
            }
            self.init(key, descending: descending)
        }

        /// `due` or `-due`.
        public var description: String { (descending ? "-" : "") + key.rawValue }
    }

    /// The keys, the first deciding first.
    public var terms: [Term]

    /// Entries by these keys, then in list order.
    public init(_ terms: [Term]) { self.terms = terms }

    /// List order: by due date (dated before undated), higher priority first at an equal due date, then
    /// oldest first, then by id.
    public static let list = EntryOrder([])

    /// The keys as typed, joined by commas: `-priority,due`.
    public var description: String { terms.map(\.description).joined(separator: ",") }

    /// `entries` in this order.
    public func sorted(_ entries: [Entry]) -> [Entry] {
        // NB: list order breaks every tie, so it is worked out first and the keys sort its indices; the keys are
        // taken out of the entries once each (comparing entries copies each item out of the enum twice).
        let listed = Entry.inListOrder(entries)
        guard !terms.isEmpty else { return listed }
        let columns = terms.map { term in (term.descending, listed.map { SortValue(term.key, of: $0) }) }
        let order = listed.indices.sorted { a, b in
            for (descending, values) in columns {
                switch (values[a], values[b]) {
                case (.missing, .missing): continue
                case (.missing, _): return false
                case (_, .missing): return true
                case let (x, y) where x == y: continue
                case let (x, y): return descending ? y < x : x < y
                }
            }
            return a < b
        }
        return order.map { listed[$0] }
    }
}

/// One entry's value for one key, as the order compares it.
private enum SortValue: Comparable {
    case number(Double)
    case text(String)
    case missing

    init(_ key: EntryOrder.Key, of entry: Entry) {
        switch key {
        case .due: self = entry.dueDate.map { .number($0.timeIntervalSinceReferenceDate) } ?? .missing
        case .priority: self = entry.priority.map { .number(Double(Priority.rank($0))) } ?? .missing
        case .created: self = entry.creationDate.map { .number($0.timeIntervalSinceReferenceDate) } ?? .missing
        case .modified:
            self =
                (entry.alterDate ?? entry.creationDate).map { .number($0.timeIntervalSinceReferenceDate) } ?? .missing
        case .text: self = .text(entry.text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil))
        }
    }
}

extension Entry {
    /// When it was made, if known (a task made before tasks had creation dates has none).
    public var creationDate: Date? {
        switch self {
        case let .todo(todo): todo.creationDate
        case let .task(task, _): task.creationDate
        }
    }

    /// When it was last changed; nil if never since it was made.
    public var alterDate: Date? {
        switch self {
        case let .todo(todo): todo.alterDate
        case let .task(task, _): task.alterDate
        }
    }
}
