import Foundation

/// A dated annotation on a todo or a task, such as "called, left a message".
public struct Note: Identifiable, Sendable, FieldCoded {
    /// The identity of the note: notes merge by it.
    public let id: UUID
    /// When the note was written.
    public let date: Date
    /// What it says.
    public let text: String

    /// What can be done to an item's notes.
    public enum Change: Hashable, Sendable {
        /// Adds a note.
        case add(Note)
        /// Sets the text of the note with this id.
        case edit(UUID, text: String)
        /// Removes the note with this id.
        case remove(UUID)
    }

    /// A new note written now.
    public init(text: String) {
        self.init(id: DocketIDs.make(), date: DocketClock.now, text: text)
    }

    /// A note exactly as stored.
    public init(id: UUID, date: Date, text: String) {
        self.id = id
        self.date = date
        self.text = text
    }

    /// The order of notes: by date, then id.
    public static func inOrder(_ notes: [Note]) -> [Note] {
        notes.sorted { ($0.date.docketMilliseconds, $0.id.uuidString) < ($1.date.docketMilliseconds, $1.id.uuidString) }
    }

    /// Every field of a note.
    public static let fields: [ItemField<Note>] = [
        ItemField("id", rule: .identity, get: { $0.id }, set: { Note(id: $1, date: $0.date, text: $0.text) }),
        ItemField("date", rule: .earliest, get: { $0.date }, set: { Note(id: $0.id, date: $1, text: $0.text) }),
        ItemField("text", rule: .laterEdit, get: { $0.text }, set: { Note(id: $0.id, date: $0.date, text: $1) }),
    ]

    public static let blank = Note(id: .zero, date: .distantPast, text: "")

    public static func == (a: Note, b: Note) -> Bool { sameFields(a, b) }
    public func hash(into hasher: inout Hasher) { hashFields(into: &hasher) }
}

extension Array where Element == Note {
    /// The notes after `change`, in date order; a change to a note that is not there changes nothing.
    public func applying(_ change: Note.Change) -> [Note] {
        switch change {
        case let .add(note):
            return Note.inOrder(filter { $0.id != note.id } + [note])
        case let .edit(id, text):
            return map { $0.id == id ? Note(id: id, date: $0.date, text: text) : $0 }
        case let .remove(id):
            return filter { $0.id != id }
        }
    }
}
